// The hand-off between the setup page's server, which runs its handlers in a task of its
// own (page_server.cpp), and the loop, which alone touches the module, the store and the
// clock (page_loop.cpp): the "one device application" rule. A handler reads the view the
// loop published after its last pass, and asks (boards/app/requests.h) what it wants done;
// the loop does it between passes and answers. One FreeRTOS mutex guards the view and the
// ask slot, held only to copy them, so the loop never waits for a client; a semaphore
// wakes the handler that waits for its answer.
#ifndef PAGE_HANDOFF_H
#define PAGE_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#include "broker.h"
#include "password.h"
#include "requests.h"

// How long a handler waits for the loop to take its ask (passes come every 10 ms or so;
// a pass that writes NVS or opens a module takes longer): past it, the ask is withdrawn
// and nothing is done.
#define PAGE_ASK_TAKE_MS 5000

// What the handlers read of the loop's state, as of its last pass.
struct PageView {
  uint32_t now;  // the loop's tick: the guess limit's clock
  bool nvs_ok;
  char ap_ip[16], local_ip[16];                   // the device's own names (the Host check)
  char stored_password[APP_PASSWORD_STORED_MAX];  // "" while none is set
  char upload_url[160];                           // as stored (the settings form's merge)
  app_broker_settings broker;                     // as stored (a form field left out keeps it)
};

// Settings a handler checked, for the loop to store (APP_ASK_SETTINGS).
struct PageSettings {
  char ssid[33], pass[64], url[160];
  app_broker_settings broker;
};

void page_handoff_begin();

// The server's side. Posts an ask and waits for its answer (the status and a message into
// `text`); false when the loop did not take it in time (nothing was done; a module's bytes
// are still the caller's).
bool page_handoff_ask(app_ask_kind kind, uint32_t number, void *data, size_t size, int *status, char *text,
                      size_t text_size);
void page_handoff_view(PageView *out);
// A copy of the module the loop runs (the playground's), for the caller to free; nullptr
// when memory is short.
uint8_t *page_handoff_module(size_t *size);

// The loop's side. The ask posted, now taken, or false.
bool page_handoff_take(app_ask *out);
void page_handoff_answer(int status, const char *text);
void page_handoff_publish(const PageView &view);
// The module the loop runs from now on: the old one's bytes may be freed once this returns.
void page_handoff_module_is(const uint8_t *bytes, size_t size);

#endif
