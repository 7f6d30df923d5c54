// Tick arithmetic: the only file that compares ticks.
//
// Ticks are u32 and wrap. Two ticks are compared by the sign of their difference, which
// is exact while they are less than 2^31 ticks apart; every span the module accepts is
// below 2^31 (MAX_SPAN), and the clock below keeps every stored timer within that window
// of the module's notion of now. The vocabulary (ticksUntil, tickReached, tickAfter) is
// the same, with the same argument order, in host/library/src/ticks.ts and tickretry_ticks.h. The
// functions are @inline: they sit on the idle poll path. (Prettier cannot parse a
// decorator on a function, so .prettierignore names this file.)
import { LIMIT_BACKSTEP_TOLERANCE, LIMIT_MAX_SPAN } from "./generated/constants";
import { BLOCK, CLOCK_AT, ClockWords } from "./state";

/** Signed ticks from `from` to `to`: positive when `to` is later, 0 or below once reached. */
@inline export function ticksUntil(from: u32, to: u32): i32 {
  return <i32>(to - from);
}

/** True when tick `t` is at or before `now`. */
@inline export function tickReached(now: u32, t: u32): bool {
  return ticksUntil(now, t) <= 0;
}

/** True when tick `t` lies at or after `from` and before `end` (end - from below 2^31). */
@inline export function tickWithin(t: u32, from: u32, end: u32): bool {
  return t - from < end - from;
}

/** The tick `span` ticks after `t`, wrapped to u32. */
@inline export function tickAfter(t: u32, span: u32): u32 {
  return t + span;
}

/** True when a span is accepted (below 2^31 ticks). */
@inline export function isSpan(span: u32): bool {
  return span <= <u32>LIMIT_MAX_SPAN;
}

/** The module's clock (in the state block): clock.now is the latest tick it has accepted. */
export const clock = changetype<ClockWords>(BLOCK + CLOCK_AT);

/** What moves the clock. */
export class Clock {
  /** Forgets the clock; the next call's now is taken as is (every call advances before reading it). */
  static reset(): void {
    clock.started = 0;
  }

  /** Sets the clock to `now`, already started (restore). */
  static restore(now: u32): void {
    clock.now = now;
    clock.started = 1;
  }

  /**
   * Brings the clock to `now`; true when it stepped back further than a racy read can.
   * A forward step (0 to 2^31 - 1 ticks) is exact. A step back of at most
   * BACKSTEP_TOLERANCE is a racy read: no time passes. A larger step back cannot be told
   * from a forward gap of 2^31 ticks or more, which has passed every timer the module
   * holds: the caller treats it as a clock fault when operations are live.
   */
  @inline static advance(now: u32): bool {
    const started = clock.started != 0;
    const step = ticksUntil(clock.now, now);
    if (!started | (step >= 0) | (step < -LIMIT_BACKSTEP_TOLERANCE)) clock.now = now;
    clock.started = 1;
    return started & (step < -LIMIT_BACKSTEP_TOLERANCE);
  }

  /** True when timer t has passed: reached by now, or swept away by a clock fault. */
  @inline static hasExpired(t: u32, fault: bool): bool {
    return fault | tickReached(clock.now, t);
  }
}
