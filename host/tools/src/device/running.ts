// The running instance: what a boot makes and a power-down loses (the module instance, its
// loop, the tick) and the pass's reading of the clock. The rooms hold this one record
// rather than the module itself, so a module swap replaces it for all of them at once.
import type { Loop, TickRetryApi } from "tickretry";
import type { DeviceTick } from "./tick.js";

export interface Running {
  api: TickRetryApi;
  loop: Loop;
  tick: DeviceTick;
  /** The clock's reading at the pass running (a pass reads the clock once). */
  passMs: number;
  /** The RTC's reading minus the clock's, read once a boot. */
  rtcOffsetMs: number;
}
