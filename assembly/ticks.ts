// Tick arithmetic: the only file that compares ticks.
//
// Ticks are u32 and wrap. Two ticks are compared by the sign of their difference, which
// is exact while they are less than 2^31 ticks apart; every span the module accepts is
// below 2^31 (MAX_SPAN), and the clock below keeps every stored timer within that window
// of the module's notion of now. The helpers are static members so that AssemblyScript
// can inline them (@inline): they sit on the idle poll path.
import { LIMIT_BACKSTEP_TOLERANCE, LIMIT_MAX_SPAN } from "./constants";

/** Comparisons and spans of u32 ticks. */
export class Tick {
  /** True when tick a comes before tick b. */
  @inline static isBefore(a: u32, b: u32): bool {
    return <i32>(a - b) < 0;
  }

  /** Ticks from `from` until `to`, or 0 when `to` has been reached. */
  static until(from: u32, to: u32): u32 {
    const d = <i32>(to - from);
    return d > 0 ? <u32>d : 0;
  }

  /** True when a span is accepted (below 2^31 ticks). */
  @inline static isSpan(span: u32): bool {
    return span <= <u32>LIMIT_MAX_SPAN;
  }
}

/** The module's clock: the latest tick it has accepted. */
export class Clock {
  static now: u32 = 0;
  static started: bool = false;

  /** Forgets the clock; the next call's now is taken as is. */
  static reset(): void {
    Clock.now = 0;
    Clock.started = false;
  }

  /** Sets the clock to `now`, already started (restore). */
  static restore(now: u32): void {
    Clock.now = now;
    Clock.started = true;
  }

  /**
   * Brings the clock to `now`; true when it stepped back further than a racy read can.
   * A forward step (0 to 2^31 - 1 ticks) is exact. A step back of at most
   * BACKSTEP_TOLERANCE is a racy read: no time passes. A larger step back cannot be told
   * from a forward gap of 2^31 ticks or more, which has passed every timer the module
   * holds: the caller treats it as a clock fault when operations are live.
   */
  @inline static advance(now: u32): bool {
    if (!Clock.started) {
      Clock.started = true;
      Clock.now = now;
      return false;
    }
    const step = <i32>(now - Clock.now);
    if (step >= -LIMIT_BACKSTEP_TOLERANCE && step < 0) return false;
    Clock.now = now;
    return step < 0;
  }

  /** True when timer t has passed: reached by now, or swept away by a clock fault. */
  static hasExpired(t: u32, fault: bool): bool {
    return fault || !Tick.isBefore(Clock.now, t);
  }
}
