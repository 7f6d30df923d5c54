// One simulated device: its own instance of the module and the main loop its firmware
// runs (host/library/src/loop.ts), with a HAL over the fleet's virtual time. Operations
// begin as FleetSettings.arrivals says: open, at every tick of the device's upload timer
// whether or not earlier ones have ended (a begin the full table refuses is counted);
// closed, one at a time, a think time after the last one ended. The loop learns of every
// end through ended(now) and releases an ended operation once none of its attempts is
// outstanding (the late-answer rule: a late answer before that is STALE_REPORT, and
// nothing is reported after); when the fleet has a power cut to survive, the device
// stores its image whenever changes() moved, before the pass sends anything. A device is
// only called when something is due for it, so an idle fleet costs nothing.
import {
  Error as AbiError,
  Limit,
  Loop,
  LoopTable,
  NextDue,
  Outcome,
  RestoreFlag,
  Result,
  errorName,
  restoreImage,
  saveImage,
  type LoopEvent,
  type LoopSlots,
  type TickRetryApi,
  classifyHttp,
  tickAfter,
} from "tickretry";
import { HTTP_OK } from "./dependency.js";
import { Rng } from "../random.js";
import { VirtualTimeHal } from "../virtual-hal.js";
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
  /** The fleet's table of uploads, which has this device's entries. */
  readonly uploads: UploadTable;
  /** The fleet's loops' slots, in which device i's loop has row i. */
  readonly loops: LoopTable;
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

const SLOTS = Limit.OPERATIONS;

/** What each device keeps per slot of the module (api.slot) beside the loop's own slots,
 * for the whole fleet in three arrays (device d's slot s at d * SLOTS + s): a million
 * devices so hold it in 21 MB, not in three typed arrays each. */
export class UploadTable {
  /** The live operation's handle (begun, not yet ended), or -1. */
  readonly handle: Int32Array;
  /** When its upload began (before a power cut, for an upload carried over it). */
  readonly began: Float64Array;
  /** 1 for an upload that was pending when power went. */
  readonly carried: Uint8Array;

  constructor(devices: number) {
    this.handle = new Int32Array(devices * SLOTS).fill(-1);
    this.began = new Float64Array(devices * SLOTS);
    this.carried = new Uint8Array(devices * SLOTS);
  }

  /** A copy of device `d`'s entries (what it stores in flash). */
  save(d: number): StoredUploads {
    const [from, to] = [d * SLOTS, (d + 1) * SLOTS];
    return {
      handle: this.handle.slice(from, to),
      began: this.began.slice(from, to),
      carried: this.carried.slice(from, to),
    };
  }

  /** Device `d`'s entries from a stored copy, or none (after a power cut). */
  load(d: number, stored?: StoredUploads): void {
    const at = d * SLOTS;
    if (stored === undefined) {
      this.handle.fill(-1, at, at + SLOTS);
      this.began.fill(0, at, at + SLOTS);
      this.carried.fill(0, at, at + SLOTS);
    } else {
      this.handle.set(stored.handle, at);
      this.began.set(stored.began, at);
      this.carried.set(stored.carried, at);
    }
  }
}

/** One device's entries of the UploadTable, as stored. */
interface StoredUploads {
  handle: Int32Array;
  began: Float64Array;
  carried: Uint8Array;
}

/** What the device keeps in flash: the image, when it was saved, and its tables. */
interface Stored {
  image: Uint8Array;
  savedAt: number;
  uploads: StoredUploads;
  slots: LoopSlots;
}

export class Device extends VirtualTimeHal {
  private loop: Loop;
  /** When the next operation begins: the timer's next tick, or the end of the think time. */
  private nextBegin = NEVER;
  /** Time of the pending WAKE event that counts (earlier ones were superseded), or -1. */
  wake = -1;
  /** Boots so far: an answer to a request of an earlier boot finds no connection. */
  epoch = 0;
  private stored?: Stored;
  /** changes() right after the last save. */
  private storedChanges = -1;
  /** The fleet's table of uploads, and where this device's entries begin in it. */
  private readonly uploads: UploadTable;
  private readonly at: number;
  /** The outcome a 503 without Retry-After means, as the module classifies it. */
  private readonly outcome503: number;

  constructor(
    readonly index: number,
    private readonly api: TickRetryApi,
    /** This device's tick at virtual time 0; ticks are virtual ms, wrapping at 2^32. */
    offset: number,
    private readonly rng: Rng,
    private readonly host: DeviceHost,
  ) {
    super(offset);
    this.uploads = host.uploads;
    this.at = index * SLOTS;
    this.outcome503 = classifyHttp(503, 0);
    this.loop = new Loop(api, this, host.loops, index);
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
    const outcome = status === HTTP_OK ? Outcome.SUCCESS : this.outcome503;
    this.answer = { handle, attempt, outcome, retryAfter: 0 };
    this.pass(time);
  }

  /** Power goes: everything in RAM is lost, every connection with it. Returns the uploads
   * pending in what the device had stored. */
  powerOff(): number {
    this.epoch++;
    this.wake = -1;
    this.nextBegin = NEVER;
    this.uploads.load(this.index);
    this.loop = new Loop(this.api, this, this.host.loops, this.index);
    this.storedChanges = -1;
    return this.stored ? this.stored.uploads.handle.filter((h) => h >= 0).length : 0;
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
      // without one passes 0, and its waits and deadlines resume from the boot. An ended
      // one was held for an answer that will never come: the loop releases it now.
      const elapsed = mode === "restore" ? time - stored.savedAt : 0;
      const result = restoreImage(this.api, stored.image, tick, elapsed, RestoreFlag.ATTEMPTS_LOST);
      if (result !== Result.OK) throw new Error(`device ${this.index}: restore refused: ${result}`);
      restored = true;
      this.loop.resume(this.api, stored.slots, true);
      this.uploads.load(this.index, stored.uploads);
      for (let i = this.at; i < this.at + SLOTS; i++)
        this.uploads.carried[i] = this.uploads.handle[i] >= 0 ? 1 : 0;
    } else if (stored) {
      for (let i = 0; i < SLOTS; i++) {
        if (stored.uploads.handle[i] >= 0) this.begin(tick, stored.uploads.began[i], true);
      }
    }
    this.nextBegin =
      this.host.arrivals === "open" || this.loop.live === 0 ? time + this.host.gap(this.rng) : NEVER;
    return restored;
  }

  /** One pass of the firmware's loop at `time`. */
  private pass(time: number): void {
    this.time = time;
    const due = this.loop.pass();
    if (this.loop.fault !== 0)
      throw new Error(`device ${this.index}: the loop stopped: ${errorName(this.loop.fault)}`);
    const next = due === NextDue.IDLE ? this.nextBegin : Math.min(time + due, this.nextBegin);
    if (next !== NEVER) this.wakeAt(next);
  }

  beginDue(tick: number): void {
    while (this.nextBegin <= this.time) {
      if (this.nextBegin >= this.host.durationMs) {
        this.nextBegin = NEVER;
        break;
      }
      this.begin(tick, this.time, false);
      this.nextBegin = this.host.arrivals === "open" ? this.nextBegin + this.host.gap(this.rng) : NEVER;
    }
  }

  /** Writes the image and the tables to flash when changes() moved. */
  persist(tick: number): void {
    if (!this.host.persists || this.api.changes() === this.storedChanges) return;
    const image = saveImage(this.api, tick);
    if (typeof image === "number") throw new Error(`device ${this.index}: save refused: ${image}`);
    this.stored = {
      image,
      savedAt: this.time,
      uploads: this.uploads.save(this.index),
      slots: this.loop.saveSlots(),
    };
    this.storedChanges = this.api.changes();
    this.host.stored(this);
  }

  startAttempt(handle: number, attempt: number): void {
    this.host.send(this, handle, attempt, this.time);
  }

  onEvent(e: LoopEvent): void {
    // A late answer (its attempt timed out, or the operation ended) is STALE_REPORT; the
    // handle is still held, so anything else is a bug.
    if (e.kind === "report" && e.result === AbiError.STALE_REPORT) this.host.stale();
    else if (e.kind === "report" && e.result < 0)
      throw new Error(`device ${this.index}: report refused: ${errorName(e.result)}`);
    else if (e.kind === "end") this.ended(e.handle, e.reason);
  }

  private begin(tick: number, began: number, carried: boolean): void {
    const h = this.loop.begin(POLICY_ID, tick);
    if (h === AbiError.TABLE_FULL) return this.host.tableFull();
    if (h < 0) throw new Error(`device ${this.index}: begin refused: ${h}`);
    const s = this.at + this.api.slot(h);
    this.uploads.handle[s] = h;
    this.uploads.began[s] = began;
    this.uploads.carried[s] = carried ? 1 : 0;
  }

  private ended(handle: number, reason: number): void {
    const slot = this.api.slot(handle);
    const s = this.at + slot;
    if (slot < 0 || this.uploads.handle[s] !== handle) {
      throw new Error(`device ${this.index}: handle ${handle} is not held`);
    }
    this.uploads.handle[s] = -1;
    this.host.ended(this.uploads.began[s], this.time, reason, this.uploads.carried[s] === 1);
    if (this.host.arrivals === "closed" && this.time < this.host.durationMs) {
      this.nextBegin = this.time + this.host.gap(this.rng);
    }
  }

  private wakeAt(at: number): void {
    // An earlier pending wake stays: it recomputes this when it runs (an extra poll is harmless).
    if (this.wake >= 0 && this.wake <= at) return;
    this.host.wakeAt(this, at);
  }
}
