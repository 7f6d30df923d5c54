// The device's millisecond tick: a u32 counter driven by the wall clock, like millis()
// on a board. It starts wherever it is told (near the wrap by default) so the wrap is
// met in the first minute, not after 49 days.
import { SimClock } from "tickretry";

/** 20 s before the wrap: every run crosses it early. */
export const DEFAULT_TICK_START = 2 ** 32 - 20_000;

export class WallTick {
  private readonly clock: SimClock;
  private readonly origin = performance.now();
  private elapsed = 0;

  constructor(readonly start = DEFAULT_TICK_START) {
    this.clock = new SimClock(start);
  }

  /** The tick now: (start + whole ms elapsed) mod 2^32. */
  read(): number {
    const elapsed = Math.floor(performance.now() - this.origin);
    if (elapsed > this.elapsed) {
      this.clock.advance(elapsed - this.elapsed);
      this.elapsed = elapsed;
    }
    return this.clock.now;
  }

  /** How many times the tick passed 0xFFFFFFFF. */
  get wraps(): number {
    return this.clock.wraps;
  }
}
