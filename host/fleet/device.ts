// One simulated device: its own instance of the module and the closed loop its firmware
// runs (think, begin one operation, poll and send, report answers, release, think again).
// It is only called when something is due for it, so an idle fleet costs nothing.
import { Error as AbiError, NextDue, Outcome } from "../abi.js";
import type { TickRetryApi } from "../tickretry.js";
import { tickAfter } from "../ticks.js";
import { HTTP_OK } from "./dependency.js";
import { Rng } from "../random.js";
import { POLICY_ID } from "./strategies.js";

/** What a device needs from the simulator around it. */
export interface DeviceHost {
  readonly durationMs: number;
  /** Sends attempt `attempt` of operation `handle` to the dependency; returns nothing. */
  send(device: Device, handle: number, attempt: number, time: number): void;
  /** Runs the device's loop again at `time` (a WAKE event). */
  wakeAt(device: Device, time: number): void;
  ended(start: number, end: number, reason: number): void;
  stale(): void;
  think(rng: Rng): number;
}

export class Device {
  /** The live operation, or -1 while thinking. */
  private handle = -1;
  private opStart = 0;
  private thinkEnd = 0;
  /** Time of the pending WAKE event that counts (earlier ones were superseded), or -1. */
  wake = -1;
  /** The outcome a 503 without Retry-After means, as the module classifies it. */
  private readonly outcome503: number;

  constructor(
    readonly index: number,
    private readonly api: TickRetryApi,
    /** This device's tick at virtual time 0; ticks are virtual ms, wrapping at 2^32. */
    private readonly offset: number,
    private readonly rng: Rng,
    private readonly host: DeviceHost,
  ) {
    this.outcome503 = api.classifyHttp(503, 0);
  }

  /** Starts the loop: the first operation begins at `phase` (settings.drawPhase), so that
   * devices do not begin together (a fleet booted at once would be another experiment). */
  start(phase: number): void {
    this.thinkEnd = phase;
    this.thinkUntilDue();
  }

  /** A WAKE event: the module has something due, or the think time is over. */
  run(time: number): void {
    const tick = tickAfter(this.offset, time);
    if (this.handle < 0) {
      // A wake asked for while the last operation was live: think on, or stop at the end.
      if (time < this.thinkEnd) return this.thinkUntilDue();
      if (time >= this.host.durationMs) return;
      this.handle = this.api.begin(POLICY_ID, tick);
      if (this.handle < 0) throw new Error(`device ${this.index}: begin refused: ${this.handle}`);
      this.opStart = time;
    }
    this.pollAndSend(time, tick);
  }

  /** The dependency's answer to one of this device's requests arrives. */
  receive(handle: number, attempt: number, status: number, time: number): void {
    const tick = tickAfter(this.offset, time);
    const outcome = status === HTTP_OK ? Outcome.SUCCESS : this.outcome503;
    const result = this.api.report(handle, attempt, outcome, 0, tick);
    // A late answer (its attempt timed out) is refused as STALE_REPORT while the operation
    // lives, and as BAD_HANDLE once it ended and its handle was released.
    if (result === AbiError.STALE_REPORT || result === AbiError.BAD_HANDLE) this.host.stale();
    else if (result < 0) throw new Error(`device ${this.index}: report refused: ${result}`);
    if (this.handle >= 0) this.pollAndSend(time, tick);
  }

  private pollAndSend(time: number, tick: number): void {
    const api = this.api;
    for (let h = api.poll(tick); h >= 0; h = api.poll(tick)) this.host.send(this, h, api.attempt(h), time);
    const due = api.nextDue(tick);
    if (due !== NextDue.IDLE) return this.wakeAt(time + due);
    // Nothing live: the operation has ended, since a device runs one at a time.
    this.host.ended(this.opStart, time, api.endReason(this.handle));
    api.release(this.handle);
    this.handle = -1;
    this.thinkEnd = time + this.host.think(this.rng);
    this.thinkUntilDue();
  }

  private thinkUntilDue(): void {
    if (this.thinkEnd < this.host.durationMs) this.wakeAt(this.thinkEnd);
  }

  private wakeAt(at: number): void {
    // An earlier pending wake stays: it recomputes this when it runs (an extra poll is harmless).
    if (this.wake >= 0 && this.wake <= at) return;
    this.host.wakeAt(this, at);
  }
}
