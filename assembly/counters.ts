// The module's counters, in static memory so they cost no globals. They wrap modulo
// 2^32 and read modulo 2^31, so a read is never taken for a negative error code.
import { touch } from "./changes";
import { COUNTERS_AT, STATE } from "./state";

const COUNTERS: usize = STATE + COUNTERS_AT;

/** Adds one to counter id. */
export function count(id: i32): void {
  const at = COUNTERS + ((<usize>id) << 2);
  store<u32>(at, load<u32>(at) + 1);
  touch();
}

/** Counter id modulo 2^31; id must be in range. */
export function counterValue(id: i32): i32 {
  return <i32>(load<u32>(COUNTERS + ((<usize>id) << 2)) & 0x7fffffff);
}
