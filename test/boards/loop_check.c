/* The device loop's check of its HAL (device_loop.h): `dropped` or `link_up` set without
 * `sessions` would never be asked, so the loop stops at once with DEVICE_LOOP_NO_SESSIONS
 * instead of losing every drop in silence; with `sessions` the same HAL runs. Prints one
 * line per HAL; test/boards/native.test.ts checks them. */
#include <inttypes.h>
#include <stdio.h>

#include "device_loop.h"
#include "idle_hal.h"

static int link_up(void *ctx, uint32_t now) {
  (void)ctx, (void)now;
  return 1;
}

static int link_ups; /* DEVICE_EVENT_LINK_UP events seen */

static void on_event(void *ctx, const device_event *e) {
  (void)ctx;
  link_ups += e->kind == DEVICE_EVENT_LINK_UP;
}

static void check(const char *name, const device_hal *hal) {
  device_loop loop;
  link_ups = 0;
  device_loop_init(&loop, hal);
  uint32_t due = device_loop_pass(&loop);
  printf("%s: fault %" PRId32 " pass %" PRIu32 " link-up events %d\n", name, device_loop_fault(&loop),
         due, link_ups);
}

int main(void) {
  if (tickretry_open() != TICKRETRY_RESULT_OK || tickretry_init(1, 2) != TICKRETRY_RESULT_OK) return 1;
  const device_hal without = {
      .ticks = idle_ticks, .collect = idle_collect, .link_up = link_up, .start_attempt = idle_start_attempt,
      .on_event = on_event};
  const device_hal with = {.ticks = idle_ticks,
                           .collect = idle_collect,
                           .sessions = &device_loop_sessions,
                           .link_up = link_up,
                           .start_attempt = idle_start_attempt,
                           .on_event = on_event};
  check("link_up without sessions", &without);
  check("link_up with sessions", &with);
  tickretry_close();
  return 0;
}
