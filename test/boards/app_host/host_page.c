/* See host_page.h. Refusals the page makes alone are answered at once; the trace prints
 * every answer as "page STATUS MESSAGE". */
#include "host_page.h"

#include <stdio.h>
#include <string.h>

#include "generated/page_routes.h"
#include "password.h"

static void answered_at_once(uint32_t now, int status, const char *message) {
  printf("%lu page %d %s\n", (unsigned long)now, status, message);
}

void host_page_password(app_requests *r, const app_hal *hal, const char *password, int first, uint32_t now) {
  if (!app_password_acceptable(password)) {
    answered_at_once(now, 400, PAGE_MSG_PASSWORD_RULE);
    return;
  }
  uint8_t salt[APP_PASSWORD_SALT_BYTES];
  hal->random_bytes(hal->ctx, salt, sizeof salt);
  char stored[APP_PASSWORD_STORED_MAX];
  if (app_password_hash(password, salt, stored, sizeof stored) != 0) {
    answered_at_once(now, 500, PAGE_MSG_PASSWORD_HASH_FAILED);
    return;
  }
  if (!app_requests_ask_password(r, stored, first)) answered_at_once(now, 503, "busy");
}

static const char *field_text(const char *text) { return strcmp(text, "-") == 0 ? "" : text; }

void host_page_settings(app_requests *r, const char *ssid, const char *pass, const char *url, uint32_t now) {
  ssid = field_text(ssid), pass = field_text(pass), url = field_text(url);
  app_broker_settings broker;
  memset(&broker, 0, sizeof broker); /* the HTTP build has no broker form */
  if (!app_requests_ask_settings(r, ssid, strlen(ssid), pass, strlen(pass), url, strlen(url), &broker))
    answered_at_once(now, 503, "busy");
}
