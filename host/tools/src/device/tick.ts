// The device's millisecond tick: a u32 counter driven by the device's clock, like millis()
// on a board. It starts wherever it is told (near the wrap by default) so the wrap is
// met in the first minute, not after 49 days.
import { SimClock } from "tickretry";
import type { DeviceClock } from "./clock.js";

/** 20 s before the wrap: every run crosses it early. */
export const DEFAULT_TICK_START = 2 ** 32 - 20_000;

export class DeviceTick {
  private readonly counter: SimClock;
  private readonly origin: number;
  private elapsed = 0;

  constructor(
    private readonly clock: DeviceClock,
    readonly start = DEFAULT_TICK_START,
  ) {
    this.counter = new SimClock(start);
    this.origin = clock.nowMs();
  }

  /** The tick now: (start + whole ms elapsed) mod 2^32. */
  read(): number {
    return this.at(this.clock.nowMs());
  }

  /** The tick at the clock's reading `ms` (a pass reads the clock once and derives the rest). */
  at(ms: number): number {
    const elapsed = Math.floor(ms - this.origin);
    if (elapsed > this.elapsed) {
      this.counter.advance(elapsed - this.elapsed);
      this.elapsed = elapsed;
    }
    return this.counter.now;
  }

  /** How many times the tick passed 0xFFFFFFFF. */
  get wraps(): number {
    return this.counter.wraps;
  }
}
