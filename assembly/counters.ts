// The module's counters, in static memory so they cost no globals. They wrap modulo
// 2^32 and read modulo 2^31, so a read is never taken for a negative error code.
import { COUNTER_COUNT } from "./constants";

const COUNTERS: usize = memory.data(COUNTER_COUNT * 4, 4);

/** Adds one to counter id. */
export function count(id: i32): void {
  const at = COUNTERS + ((<usize>id) << 2);
  store<u32>(at, load<u32>(at) + 1);
}

/** Counter id modulo 2^31; id must be in range. */
export function counterValue(id: i32): i32 {
  return <i32>(load<u32>(COUNTERS + ((<usize>id) << 2)) & 0x7fffffff);
}

/** Zeroes every counter (init). */
export function resetCounters(): void {
  for (let i = 0; i < COUNTER_COUNT; i++) store<u32>(COUNTERS + ((<usize>i) << 2), 0);
}
