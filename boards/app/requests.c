/* See requests.h. */
#include "requests.h"

#include <stdio.h>

#include "tickretry_ticks.h"

void app_requests_upload(app_requests *r) { r->upload = 1; }

int app_requests_take_upload(app_requests *r) {
  int asked = r->upload;
  r->upload = 0;
  return asked;
}

void app_requests_restart(app_requests *r, uint32_t now) {
  r->power_at = tickretry_tick_after(now, APP_REQUEST_POWER_AFTER_MS);
  r->restart = 1;
}

void app_requests_sleep(app_requests *r, uint32_t sleep_ms, uint32_t now) {
  r->sleep_ms = sleep_ms;
  r->power_at = tickretry_tick_after(now, APP_REQUEST_POWER_AFTER_MS);
}

app_power_request app_requests_power_due(const app_requests *r, uint32_t now) {
  if (!tickretry_tick_reached(now, r->power_at)) return APP_POWER_NONE;
  if (r->restart) return APP_POWER_RESTART;
  return r->sleep_ms ? APP_POWER_SLEEP : APP_POWER_NONE;
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
