/* The tickretry loop with the wasm2c backend and nothing else, for its RV32 footprint
 * (text/data/bss): a HAL with no network, a few passes, no printf. */
#include "tickretry_loop.h"
#include "idle_hal.h"
#include "tickretry_ticks.h"

static uint32_t ticks;

static uint32_t read_ticks(void *ctx) {
  (void)ctx;
  return ticks;
}

int main(void) {
  static const tickretry_loop_hal hal = {.ticks = read_ticks, .start_attempt = idle_start_attempt,
                                  .collect = idle_collect};
  static const tickretry_policy policy = {.max_attempts = 3, .attempt_timeout = 1000, .base_delay = 100,
                                          .max_delay = 1000};
  tickretry_loop loop;
  if (tickretry_open() != TICKRETRY_RESULT_OK) return 1;
  tickretry_init(1, 2);
  tickretry_set_policy(0, &policy);
  tickretry_loop_init(&loop, &hal);
  tickretry_loop_begin(&loop, 0, ticks);
  while (tickretry_loop_live(&loop) > 0) ticks = tickretry_tick_after(ticks, tickretry_loop_pass(&loop));
  return tickretry_error() != 0;
}
