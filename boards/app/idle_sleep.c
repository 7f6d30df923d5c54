/* See idle_sleep.h. */
#include "idle_sleep.h"

#include "tickretry.h"
#include "tickretry_ticks.h"

uint32_t app_idle_sleep_ms(const tickretry_loop *uploads, uint32_t due, uint32_t now, uint32_t reading_at,
                           uint32_t max_ms) {
  for (uint32_t s = 0; s < TICKRETRY_LIMIT_OPERATIONS; s++)
    if (uploads->slots.outstanding[s] > 0) return 0;
  int32_t until_reading = tickretry_ticks_until(now, reading_at);
  uint32_t sleep_ms = tickretry_loop_sleep(due, until_reading > 0 ? (uint32_t)until_reading : 0);
  sleep_ms = tickretry_loop_sleep(sleep_ms, max_ms);
  return sleep_ms < APP_SLEEP_MIN_MS ? 0 : sleep_ms;
}
