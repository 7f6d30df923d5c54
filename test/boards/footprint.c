/* The device loop with the wasm2c backend and nothing else, for its RV32 footprint
 * (text/data/bss): a HAL with no network, a few passes, no printf. */
#include "device_loop.h"
#include "tickretry_ticks.h"

static uint32_t ticks;

static uint32_t read_ticks(void *ctx) {
  (void)ctx;
  return ticks;
}

static void start_attempt(void *ctx, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t now) {
  (void)ctx, (void)handle, (void)attempt, (void)operation_id, (void)now;
}

static int collect(void *ctx, uint32_t now, device_result *out) {
  (void)ctx, (void)now, (void)out;
  return 0;
}

int main(void) {
  static const device_hal hal = {.ticks = read_ticks, .start_attempt = start_attempt, .collect = collect};
  static const tickretry_policy policy = {.max_attempts = 3, .attempt_timeout = 1000, .base_delay = 100,
                                          .max_delay = 1000};
  device_loop loop;
  if (tickretry_open() != TICKRETRY_RESULT_OK) return 1;
  tickretry_init(1, 2);
  tickretry_set_policy(0, &policy);
  device_loop_init(&loop, &hal);
  device_loop_begin(&loop, 0, ticks);
  while (device_loop_live(&loop) > 0) ticks = tickretry_tick_after(ticks, device_loop_pass(&loop));
  return tickretry_error() != 0;
}
