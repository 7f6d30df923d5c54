/* See host_page.h. Refusals the page makes alone are answered at once; the trace prints
 * every answer as "page STATUS MESSAGE". */
#include "host_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generated/page_routes.h"
#include "module_signature.h"
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

/* The whole file, malloc'd; NULL when it cannot be read. */
static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  uint8_t *bytes = NULL;
  long length = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (length > 0 && fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)length)) != NULL &&
      fread(bytes, 1, (size_t)length, f) != (size_t)length) {
    free(bytes);
    bytes = NULL;
  }
  if (f) fclose(f);
  *size = length > 0 ? (size_t)length : 0;
  return bytes;
}

int host_page_module(const char *path, const uint8_t build_key[32], uint32_t now, uint8_t **module, size_t *size) {
  char text[160];
  size_t length;
  uint8_t *incoming = read_file(path, &length);
  if (!incoming) {
    answered_at_once(now, 400, PAGE_MSG_NO_MODULE);
    return 0;
  }
  module_signature_result signature = module_signature_check(incoming, length, build_key, size);
  if (signature != MODULE_SIGNATURE_OK) {
    free(incoming);
    snprintf(text, sizeof text, "%s%s.", PAGE_MSG_MODULE_REFUSED, module_signature_meaning(signature));
    answered_at_once(now, 422, text);
    return 0;
  }
  *module = incoming;
  return 1;
}
