/* The HAL hooks of the test programs with no network (footprint.c, trap.c, loop_check.c):
 * no attempt goes anywhere and no answer comes back; idle_ticks stands at 0. */
#ifndef IDLE_HAL_H
#define IDLE_HAL_H

#include "tickretry_loop.h"

static inline uint32_t idle_ticks(void *ctx) {
  (void)ctx;
  return 0;
}

static inline void idle_start_attempt(void *ctx, int32_t handle, int32_t attempt, int32_t operation_id,
                                      uint32_t now) {
  (void)ctx, (void)handle, (void)attempt, (void)operation_id, (void)now;
}

static inline int idle_collect(void *ctx, uint32_t now, tickretry_loop_result *out) {
  (void)ctx, (void)now, (void)out;
  return 0;
}

#endif
