/* See requests.h. */
#include "requests.h"

#include <stdio.h>
#include <string.h>

#include "generated/app_config.h"
#include "tickretry_ticks.h"

void app_requests_upload(app_requests *r) { r->upload = 1; }

int app_requests_take_upload(app_requests *r) {
  int asked = r->upload;
  r->upload = 0;
  return asked;
}

void app_requests_ask_restart(app_requests *r) { r->restart = 1; }

void app_requests_ask_sleep(app_requests *r, uint32_t sleep_ms) { r->sleep_ms = sleep_ms; }

app_power_request app_requests_power_due(app_requests *r, uint32_t now) {
  if (!r->restart && !r->sleep_ms) return APP_POWER_NONE;
  if (!r->power_seen) {
    r->power_seen = 1;
    r->power_at = tickretry_tick_after(now, APP_LOOP_POWER_AFTER_MS);
  }
  if (!tickretry_tick_reached(now, r->power_at)) return APP_POWER_NONE;
  return r->restart ? APP_POWER_RESTART : APP_POWER_SLEEP;
}

static int ask_free(const app_requests *r) { return r->form.kind == APP_FORM_ASK_NONE && r->form.answer_status == 0; }

/* Copies `length` bytes (NULs too), cut to `size` - 1; the copy's length. */
static size_t field(char *out, size_t size, const char *text, size_t length) {
  if (length > size - 1) length = size - 1;
  memcpy(out, text, length);
  out[length] = '\0';
  return length;
}

int app_requests_ask_settings(app_requests *r, const char *ssid, size_t ssid_len, const char *pass, size_t pass_len,
                              const char *url, size_t url_len, const app_broker_settings *broker) {
  if (!ask_free(r)) return 0;
  app_settings_ask *s = &r->form.settings;
  s->ssid_len = field(s->ssid, sizeof s->ssid, ssid, ssid_len);
  s->pass_len = field(s->pass, sizeof s->pass, pass, pass_len);
  s->url_len = field(s->url, sizeof s->url, url, url_len);
  s->broker = *broker;
  r->form.kind = APP_FORM_ASK_SETTINGS;
  return 1;
}

int app_requests_ask_password(app_requests *r, const char *hash, int first_setup) {
  if (!ask_free(r) || strlen(hash) >= sizeof r->form.password_hash) return 0;
  strcpy(r->form.password_hash, hash);
  r->form.first_setup = (uint8_t)(first_setup != 0);
  r->form.kind = APP_FORM_ASK_PASSWORD;
  return 1;
}

int app_requests_answered(app_requests *r, int *status, const char **message, const char **field) {
  if (r->form.kind != APP_FORM_ASK_NONE || r->form.answer_status == 0) return 0;
  *status = r->form.answer_status;
  *message = r->form.answer;
  *field = r->form.answer_field;
  r->form.answer_status = 0;
  return 1;
}

int app_ask_post(app_ask *slot, app_ask_kind kind, uint32_t number, void *data, size_t size) {
  if (slot->state != APP_ASK_EMPTY) return 0;
  *slot = (app_ask){APP_ASK_POSTED, kind, number, data, size, 0, ""};
  return 1;
}

int app_ask_take(app_ask *slot, app_ask *out) {
  if (slot->state != APP_ASK_POSTED) return 0;
  slot->state = APP_ASK_TAKEN;
  *out = *slot;
  return 1;
}

void app_ask_answer(app_ask *slot, int status, const char *text) {
  slot->status = status;
  snprintf(slot->text, sizeof slot->text, "%s", text);
  slot->state = APP_ASK_ANSWERED;
}

int app_ask_answered(app_ask *slot, int *status, char *text, size_t size) {
  if (slot->state != APP_ASK_ANSWERED) return 0;
  *status = slot->status;
  snprintf(text, size, "%s", slot->text);
  slot->state = APP_ASK_EMPTY;
  return 1;
}

int app_ask_withdraw(app_ask *slot) {
  if (slot->state != APP_ASK_POSTED) return 0;
  slot->state = APP_ASK_EMPTY;
  return 1;
}
