// A simulated 32-bit tick counter: it can start anywhere (near the wrap, say), move on,
// stall, and count how often it wrapped.
import { tickAfter } from "./ticks.js";

/**
 * A simulated u32 tick counter for tests: start it anywhere, move it on, stall it.
 * @example
 * ```ts
 * import { SimClock } from "tickretry";
 *
 * const clock = new SimClock(0xffff_ff00); // 256 ticks before the wrap
 * clock.stall(1000); // the loop was blocked for 1000 ticks
 * console.log(clock.now, clock.wraps); // 744 1
 * ```
 */
export class SimClock {
  /** The tick the host reads, a u32. */
  now: number;
  /** How many times the counter passed 0xFFFFFFFF. */
  wraps = 0;

  /** start: the first tick (default 0xFFFF_F000, 4096 ticks before the wrap). */
  constructor(start = 0xffff_f000) {
    this.now = start >>> 0;
  }

  /** Moves the clock on by `ticks` (0 to 2^32 - 1). */
  advance(ticks: number): number {
    const next = tickAfter(this.now, ticks);
    if (next < this.now || ticks >= 2 ** 32) this.wraps++;
    this.now = next;
    return this.now;
  }

  /** A stall: the host did not run for `ticks`; the same as advance, named for tests. */
  stall(ticks: number): number {
    return this.advance(ticks);
  }
}
