// Tick arithmetic: the only file that compares ticks.
//
// Ticks are u32 and wrap. Two ticks are compared by the sign of their difference, which
// is exact while they are less than 2^31 ticks apart; every span the module accepts is
// below 2^31 (MAX_SPAN), and the clock below keeps every stored timer within that window
// of the module's notion of now.
import { LIMIT_BACKSTEP_TOLERANCE, LIMIT_MAX_SPAN } from "./constants";

let current: u32 = 0;
let started: bool = false;

/** True when tick a comes before tick b. */
export function isBefore(a: u32, b: u32): bool {
  return <i32>(a - b) < 0;
}

/** Ticks from `from` until `to`, or 0 when `to` has been reached. */
export function ticksUntil(from: u32, to: u32): u32 {
  const d = <i32>(to - from);
  return d > 0 ? <u32>d : 0;
}

/** True when a span is accepted (below 2^31 ticks). */
export function isSpan(span: u32): bool {
  return span <= <u32>LIMIT_MAX_SPAN;
}

/** The module's now: the latest tick it has accepted. */
export function clockNow(): u32 {
  return current;
}

/** Forgets the clock; the next call's now is taken as is. */
export function resetClock(): void {
  current = 0;
  started = false;
}

/**
 * Brings the clock to `now` and says whether the step is a clock fault.
 * A forward step (0 to 2^31 - 1 ticks) is exact. A step back of at most
 * BACKSTEP_TOLERANCE is a racy read: no time passes. A larger step back cannot be told
 * from a forward gap of 2^31 ticks or more, which has passed every timer the module
 * holds, so it is a fault when operations are live: the caller expires them all.
 */
export function advanceClock(now: u32, anyLive: bool): bool {
  if (!started) {
    started = true;
    current = now;
    return false;
  }
  const step = <i32>(now - current);
  if (step >= -LIMIT_BACKSTEP_TOLERANCE && step < 0) return false;
  current = now;
  return step < 0 && anyLive;
}

/** True when timer t has passed: reached by now, or swept away by a clock fault. */
export function hasExpired(t: u32, fault: bool): bool {
  return fault || !isBefore(current, t);
}
