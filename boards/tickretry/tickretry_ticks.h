/* Tick arithmetic for C, the one place C code compares ticks: the same names and
 * argument order as assembly/ticks.ts and host/library/src/ticks.ts. Ticks are a free-running u32
 * counter (millis() on Arduino) that wraps after 2^32; two ticks are compared by their
 * signed distance, which is right for any two ticks less than 2^31 apart. */
#ifndef TICKRETRY_TICKS_H
#define TICKRETRY_TICKS_H

#include <stdbool.h>
#include <stdint.h>

/* The signed distance from `from` to `to`: positive when `to` is later, 0 or negative
 * once it is reached. (The u32 difference read as i32: two's complement on every
 * compiler this project builds with.) */
static inline int32_t tickretry_ticks_until(uint32_t from, uint32_t to) {
  return (int32_t)(to - from);
}

/* True when tick t is at or before now. */
static inline bool tickretry_tick_reached(uint32_t now, uint32_t t) {
  return tickretry_ticks_until(now, t) <= 0;
}

/* t + span, wrapped to u32. */
static inline uint32_t tickretry_tick_after(uint32_t t, uint32_t span) { return t + span; }

#endif
