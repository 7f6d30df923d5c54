/* The setup page's side on this machine, as boards/esp32/src/page_server.cpp's handlers are
 * to post them: a handler checks what it can alone, posts an ask (requests.h) and leaves the
 * rest to the loop (asks.c), which answers. It never calls the module, the keeper or the tick. */
#ifndef HOST_PAGE_H
#define HOST_PAGE_H
#include <stdint.h>

#include "app_hal.h"
#include "requests.h"

/* "password PW": a first setup (`first`: the status said no password is set), else a change. */
void host_page_password(app_requests *r, const app_hal *hal, const char *password, int first, uint32_t now);
/* "settings SSID PASS URL" ("-" for an empty field). */
void host_page_settings(app_requests *r, const char *ssid, const char *pass, const char *url, uint32_t now);
/* "module KIND": the page's upload of the file at `path`, its signature checked against
 * `build_key` as page_server.cpp's handler checks it; 1 and the module's bytes (malloc'd)
 * for the loop, else 0 and the refusal answered. */
int host_page_module(const char *path, const uint8_t build_key[32], uint32_t now, uint8_t **module, size_t *size);
#endif
