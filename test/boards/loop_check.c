/* The tickretry loop's check of its HAL (tickretry_loop.h): `dropped` or `link_up` set without
 * `sessions` would never be asked, so the loop stops at once with TICKRETRY_LOOP_NO_SESSIONS
 * instead of losing every drop in silence; with `sessions` the same HAL runs. Prints one
 * line per HAL; test/boards/native.test.ts checks them. */
#include <inttypes.h>
#include <stdio.h>

#include "tickretry_loop.h"
#include "idle_hal.h"

static int link_up(void *ctx, uint32_t now) {
  (void)ctx, (void)now;
  return 1;
}

static int link_ups; /* TICKRETRY_LOOP_EVENT_LINK_UP events seen */

static void on_event(void *ctx, const tickretry_loop_event *e) {
  (void)ctx;
  link_ups += e->kind == TICKRETRY_LOOP_EVENT_LINK_UP;
}

static void check(const char *name, const tickretry_loop_hal *hal) {
  tickretry_loop loop;
  link_ups = 0;
  tickretry_loop_init(&loop, hal);
  uint32_t due = tickretry_loop_pass(&loop);
  printf("%s: fault %" PRId32 " pass %" PRIu32 " link-up events %d\n", name, tickretry_loop_fault(&loop),
         due, link_ups);
}

int main(void) {
  if (tickretry_open() != TICKRETRY_RESULT_OK || tickretry_init(1, 2) != TICKRETRY_RESULT_OK) return 1;
  const tickretry_loop_hal without = {
      .ticks = idle_ticks, .collect = idle_collect, .link_up = link_up, .start_attempt = idle_start_attempt,
      .on_event = on_event};
  const tickretry_loop_hal with = {.ticks = idle_ticks,
                           .collect = idle_collect,
                           .sessions = &tickretry_loop_sessions,
                           .link_up = link_up,
                           .start_attempt = idle_start_attempt,
                           .on_event = on_event};
  check("link_up without sessions", &without);
  check("link_up with sessions", &with);
  tickretry_close();
  return 0;
}
