/* boards/tickretry/tickretry_ticks.h on the lines of stdin, each "a b" (two u32 ticks):
 * prints "reached until" per line, tickretry_tick_reached(a, b) and
 * tickretry_ticks_until(b, a), for test/peers/time-after.test.ts to set beside the
 * TypeScript helpers and Linux's jiffies.h. */
#include <inttypes.h>
#include <stdio.h>

#include "tickretry_ticks.h"

int main(void) {
  uint32_t a, b;
  while (scanf("%" SCNu32 " %" SCNu32, &a, &b) == 2) {
    printf("%d %" PRId32 "\n", tickretry_tick_reached(a, b) ? 1 : 0, tickretry_ticks_until(b, a));
  }
  return 0;
}
