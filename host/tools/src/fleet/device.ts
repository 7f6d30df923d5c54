// One simulated device: its own instance of the module and the loop its firmware runs.
// Operations begin as FleetSettings.arrivals says: open, at every tick of the device's
// upload timer whether or not earlier ones have ended (a begin the full table refuses is
// counted); closed, one at a time, a think time after the last one ended. Each pass is the
// loop of docs/ABI.md: it learns of every end through ended(now) and releases an ended
// operation once none of its attempts is outstanding (the late-answer rule: a late answer
// before that is STALE_REPORT, and nothing is reported after), begins what is due, polls
// until NONE and sends each attempt, and, when the fleet has a power cut to survive,
// stores its image whenever changes() moved. A device is only called when something is
// due for it, so an idle fleet costs nothing.
import {
  Error as AbiError,
  Limit,
  NextDue,
  Outcome,
  RestoreFlag,
  Result,
  restoreImage,
  saveImage,
  type TickRetryApi,
  tickAfter,
} from "tickretry";
import { HTTP_OK } from "./dependency.js";
import { Rng } from "../random.js";
import type { Arrivals } from "./settings.js";
import { POLICY_ID, type BootMode } from "./strategies.js";

/** What a device needs from the simulator around it. */
export interface DeviceHost {
  readonly durationMs: number;
  readonly arrivals: Arrivals;
  /** Store the image (and the device's own table of uploads) whenever changes() moved. */
  readonly persists: boolean;
  /** The device has just stored its image. */
  stored(device: Device): void;
  /** Sends attempt `attempt` of operation `handle` to the dependency; returns nothing. */
  send(device: Device, handle: number, attempt: number, time: number): void;
  /** Runs the device's loop again at `time` (a WAKE event). */
  wakeAt(device: Device, time: number): void;
  /** An operation ended; `pending`: its upload was pending at a power cut. */
  ended(start: number, end: number, reason: number, pending: boolean): void;
  stale(): void;
  /** begin was refused with TABLE_FULL: this upload is lost. */
  tableFull(): void;
  /** The next gap: the upload interval (open) or the think time (closed). */
  gap(rng: Rng): number;
}

/** No begin is pending (a closed device while its operation runs, or past durationMs). */
const NEVER = Infinity;

/** The device's tables, by slot of the module (api.slot). */
class Slots {
  /** The handle held (begun, not yet released), or -1. */
  readonly handle = new Int32Array(Limit.OPERATIONS).fill(-1);
  /** When its upload began (before a power cut, for an upload carried over it). */
  readonly began = new Float64Array(Limit.OPERATIONS);
  /** Attempts sent whose answer has not come back. */
  readonly outstanding = new Int32Array(Limit.OPERATIONS);
  /** 1 once ended() handed it out: released as soon as nothing is outstanding. */
  readonly done = new Uint8Array(Limit.OPERATIONS);
  /** 1 for an upload that was pending when power went. */
  readonly carried = new Uint8Array(Limit.OPERATIONS);

  copy(): Slots {
    const c = new Slots();
    c.handle.set(this.handle);
    c.began.set(this.began);
    c.outstanding.set(this.outstanding);
    c.done.set(this.done);
    c.carried.set(this.carried);
    return c;
  }
}

/** What the device keeps in flash: the image, when it was saved, and its table of uploads. */
interface Stored {
  image: Uint8Array;
  savedAt: number;
  slots: Slots;
}

export class Device {
  private slots = new Slots();
  /** Operations begun and not ended (a closed device has at most one). */
  private live = 0;
  /** When the next operation begins: the timer's next tick, or the end of the think time. */
  private nextBegin = NEVER;
  /** Time of the pending WAKE event that counts (earlier ones were superseded), or -1. */
  wake = -1;
  /** Boots so far: an answer to a request of an earlier boot finds no connection. */
  epoch = 0;
  private stored?: Stored;
  /** changes() right after the last save. */
  private storedChanges = -1;
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
    this.nextBegin = phase;
    this.wakeAt(phase);
  }

  /** A WAKE event: the module has something due, or an operation is to begin. */
  run(time: number): void {
    this.pass(time);
  }

  /** The dependency's answer to one of this device's requests arrives. */
  receive(handle: number, attempt: number, status: number, time: number): void {
    this.slots.outstanding[this.slotOf(handle)]--;
    const outcome = status === HTTP_OK ? Outcome.SUCCESS : this.outcome503;
    const result = this.api.report(handle, attempt, outcome, 0, tickAfter(this.offset, time));
    // A late answer (its attempt timed out, or the operation ended) is STALE_REPORT; the
    // handle is still held, so anything else is a bug.
    if (result === AbiError.STALE_REPORT) this.host.stale();
    else if (result < 0) throw new Error(`device ${this.index}: report refused: ${result}`);
    this.pass(time);
  }

  /** Power goes: everything in RAM is lost, every connection with it. Returns the uploads
   * pending in what the device had stored. */
  powerOff(): number {
    this.epoch++;
    this.wake = -1;
    this.nextBegin = NEVER;
    this.slots = new Slots();
    this.live = 0;
    this.storedChanges = -1;
    const s = this.stored?.slots;
    let pending = 0;
    for (let i = 0; s && i < Limit.OPERATIONS; i++) if (s.handle[i] >= 0 && s.done[i] === 0) pending++;
    return pending;
  }

  /** Power is back; the module was initialised and configured again as at any boot. Its
   * pending uploads go on from the stored image, or begin afresh; the loop runs from the
   * next run(). Returns whether an image was restored. */
  boot(time: number, mode: BootMode): boolean {
    const tick = tickAfter(this.offset, time);
    const stored = this.stored;
    let restored = false;
    if (stored && mode !== "afresh") {
      // Every connection closed with the power: attempts in flight are lost. The time
      // since the save is what a clock that ran through the cut (an RTC) tells; a device
      // without one passes 0, and its waits and deadlines resume from the boot.
      const elapsed = mode === "restore" ? time - stored.savedAt : 0;
      const result = restoreImage(this.api, stored.image, tick, elapsed, RestoreFlag.ATTEMPTS_LOST);
      if (result !== Result.OK) throw new Error(`device ${this.index}: restore refused: ${result}`);
      restored = true;
      const s = stored.slots.copy();
      for (let i = 0; i < Limit.OPERATIONS; i++) {
        if (s.handle[i] < 0) continue;
        // An ended one was held for an answer that will never come: abandoned, released below.
        s.outstanding[i] = 0;
        if (s.done[i] === 0) {
          s.carried[i] = 1;
          this.live++;
        }
      }
      this.slots = s;
    } else if (stored) {
      for (let i = 0; i < Limit.OPERATIONS; i++) {
        if (stored.slots.handle[i] >= 0 && stored.slots.done[i] === 0) {
          this.begin(tick, stored.slots.began[i], true);
        }
      }
    }
    this.nextBegin =
      this.host.arrivals === "open" || this.live === 0 ? time + this.host.gap(this.rng) : NEVER;
    return restored;
  }

  /** One pass of the firmware's loop at `time`. */
  private pass(time: number): void {
    const api = this.api;
    const tick = tickAfter(this.offset, time);
    this.collectEnds(time, tick);
    while (this.nextBegin <= time) {
      if (this.nextBegin >= this.host.durationMs) {
        this.nextBegin = NEVER;
        break;
      }
      this.begin(tick, time, false);
      this.nextBegin = this.host.arrivals === "open" ? this.nextBegin + this.host.gap(this.rng) : NEVER;
    }
    let h: number;
    for (h = api.poll(tick); h >= 0; h = api.poll(tick)) {
      this.slots.outstanding[this.slotOf(h)]++;
      this.host.send(this, h, api.attempt(h), time);
    }
    if (h !== Result.NONE) throw new Error(`device ${this.index}: poll failed: ${h}`);
    this.collectEnds(time, tick);
    if (this.host.persists) this.store(time, tick);
    const due = api.nextDue(tick);
    const next = due === NextDue.IDLE ? this.nextBegin : Math.min(time + due, this.nextBegin);
    if (next !== NEVER) this.wakeAt(next);
  }

  private begin(tick: number, began: number, carried: boolean): void {
    const h = this.api.begin(POLICY_ID, tick);
    if (h === AbiError.TABLE_FULL) return this.host.tableFull();
    if (h < 0) throw new Error(`device ${this.index}: begin refused: ${h}`);
    const s = this.api.slot(h);
    this.slots.handle[s] = h;
    this.slots.began[s] = began;
    this.slots.outstanding[s] = 0;
    this.slots.done[s] = 0;
    this.slots.carried[s] = carried ? 1 : 0;
    this.live++;
  }

  /** Learns of every operation that has ended, and releases those with nothing outstanding. */
  private collectEnds(time: number, tick: number): void {
    const api = this.api;
    const s = this.slots;
    for (let h = api.ended(tick); h >= 0; h = api.ended(tick)) {
      const i = this.slotOf(h);
      s.done[i] = 1;
      this.live--;
      this.host.ended(s.began[i], time, api.endReason(h), s.carried[i] === 1);
      if (this.host.arrivals === "closed" && time < this.host.durationMs) {
        this.nextBegin = time + this.host.gap(this.rng);
      }
    }
    for (let i = 0; i < Limit.OPERATIONS; i++) {
      if (s.done[i] === 0 || s.outstanding[i] !== 0) continue;
      const result = api.release(s.handle[i]);
      if (result < 0) throw new Error(`device ${this.index}: release refused: ${result}`);
      s.handle[i] = -1;
      s.done[i] = 0;
    }
  }

  /** Writes the image and the table of uploads to flash when changes() moved. */
  private store(time: number, tick: number): void {
    if (this.api.changes() === this.storedChanges) return;
    const image = saveImage(this.api, tick);
    if (typeof image === "number") throw new Error(`device ${this.index}: save refused: ${image}`);
    this.stored = { image, savedAt: time, slots: this.slots.copy() };
    this.storedChanges = this.api.changes();
    this.host.stored(this);
  }

  private slotOf(handle: number): number {
    const s = this.api.slot(handle);
    if (s < 0 || this.slots.handle[s] !== handle) {
      throw new Error(`device ${this.index}: handle ${handle} is not held`);
    }
    return s;
  }

  private wakeAt(at: number): void {
    // An earlier pending wake stays: it recomputes this when it runs (an extra poll is harmless).
    if (this.wake >= 0 && this.wake <= at) return;
    this.host.wakeAt(this, at);
  }
}
