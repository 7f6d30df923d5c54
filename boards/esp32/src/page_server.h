// The setup page's server: ESP-IDF's esp_http_server, which serves from a task of its own
// with a receive and a send timeout on every connection and a cap on connections (the
// least recently used one is closed for a new one), so no client, however slow, holds up
// the loop. Every route of the contract (generated/page_routes.h) passes one guard (the
// Host, a post's origin, the device password under the guess limit, the body's size);
// the page's files come from flash. The handlers never touch the module, the store or the
// clock: they read the loop's view and ask the loop (page_handoff.h), which does the asks
// between passes (page_loop.h).
#ifndef PAGE_SERVER_H
#define PAGE_SERVER_H

// Starts the server's task, after page_loop_begin(); false when it would not start.
bool page_server_begin();

#endif
