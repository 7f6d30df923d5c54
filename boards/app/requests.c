/* See requests.h. */
#include "requests.h"

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
