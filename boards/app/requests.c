/* See requests.h. */
#include "requests.h"

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

void app_requests_restart(app_requests *r, uint32_t now) {
  (void)now;
  app_requests_ask_restart(r);
}

void app_requests_sleep(app_requests *r, uint32_t sleep_ms, uint32_t now) {
  (void)now;
  app_requests_ask_sleep(r, sleep_ms);
}

app_power_request app_requests_power_due(app_requests *r, uint32_t now) {
  if (!r->restart && !r->sleep_ms) return APP_POWER_NONE;
  if (!r->power_seen) {
    r->power_seen = 1;
    r->power_at = tickretry_tick_after(now, APP_LOOP_POWER_AFTER_MS);
  }
  if (!tickretry_tick_reached(now, r->power_at)) return APP_POWER_NONE;
  return r->restart ? APP_POWER_RESTART : APP_POWER_SLEEP;
}
