// The simulated device's only source of time, given to it from outside: a monotonic ms
// reading (millis() before it is cut to a u32 tick), the RTC's reading, timers for the
// next pass, and a blocking stall. wallClock runs it in real time (npm start, the chaos
// run); VirtualClock runs it in time a test moves on, so a test jumps to the next pass
// instead of waiting for it.
import { EventQueue } from "../event-queue.js";

export interface DeviceClock {
  /** Monotonic ms since an arbitrary origin. */
  nowMs(): number;
  /** The RTC: ms since the Unix epoch (what a stored state's age is measured by). */
  wallMs(): number;
  /** Calls `fn` once `ms` from now (0: as soon as the host is free); returns a cancel. */
  after(ms: number, fn: () => void): () => void;
  /** Blocks the device for `ms`, as a slow flash write blocks a firmware loop. */
  block(ms: number): void;
}

/** Real time: performance.now, Date.now, setImmediate/setTimeout, Atomics.wait. */
export const wallClock: DeviceClock = {
  nowMs: () => performance.now(),
  wallMs: () => Date.now(),
  after(ms, fn) {
    if (ms <= 0) {
      const immediate = setImmediate(fn);
      return () => clearImmediate(immediate);
    }
    const timeout = setTimeout(fn, ms);
    return () => clearTimeout(timeout);
  },
  block: (ms) => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
};

/** Time that moves only when told: timers run in time order (ties: first set first). */
export class VirtualClock implements DeviceClock {
  private t = 0;
  private seq = 0;
  private readonly queue = new EventQueue();
  /** Timers set and neither run nor cancelled, by their tie. */
  private readonly timers = new Map<number, () => void>();

  /** epochMs: the RTC's reading at virtual time 0. */
  constructor(private readonly epochMs = Date.UTC(2026, 0, 1)) {}

  nowMs(): number {
    return this.t;
  }

  wallMs(): number {
    return this.epochMs + this.t;
  }

  after(ms: number, fn: () => void): () => void {
    const id = this.seq++;
    this.timers.set(id, fn);
    this.queue.push(this.t + Math.max(0, ms), id, 0, id);
    return () => this.timers.delete(id);
  }

  block(ms: number): void {
    this.t += ms;
  }

  /** Runs the next timer set at or before `end` (late, at the current time, if a block
   * passed it): false when there is none. */
  step(end = Infinity): boolean {
    const popped = this.queue.popped;
    while (this.queue.peekTime() <= end) {
      this.queue.pop();
      const fn = this.timers.get(popped.arg);
      if (fn === undefined) continue; // cancelled
      this.timers.delete(popped.arg);
      this.t = Math.max(this.t, popped.time);
      fn();
      return true;
    }
    return false;
  }

  /** Runs every timer due within `ms`, then stands at now + ms. */
  advance(ms: number): void {
    const end = this.t + ms;
    while (this.step(end));
    this.t = Math.max(this.t, end);
  }
}
