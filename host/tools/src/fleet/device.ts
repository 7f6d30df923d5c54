// The simulated devices: each one the module (its state, in its instance) and the main
// loop its firmware runs (host/library/src/loop.ts), with a HAL over the fleet's virtual
// time. Operations begin as FleetSettings.arrivals says: open, at every tick of the
// device's upload timer whether or not earlier ones have ended (a begin the full table
// refuses is counted); closed, one at a time, a think time after the last one ended. The
// loop learns of every end through ended(now) and releases an ended operation once none of
// its attempts is outstanding (the late-answer rule: a late answer before that is
// STALE_REPORT, and nothing is reported after); when the fleet has a power cut to survive,
// the device stores its image whenever changes() moved, before the pass sends anything. A
// device is only called when something is due for it, so an idle fleet costs nothing.
//
// One FleetDevices object, with one Loop, serves the whole fleet: what each device keeps lies in
// its row of one typed array (and its loop's in the LoopTable), so that an event touches a
// few cache lines of its device, not a device object, a loop object and a generator of its own
// scattered over a heap of millions.
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
} from "tickretry";
import { HTTP_OK } from "./dependency.js";
import { Rng } from "../random.js";
import { VirtualTimeHal } from "../virtual-hal.js";
import type { Arrivals } from "./settings.js";
import { POLICY_ID, type BootMode } from "./strategies.js";

/** What the devices need from the simulator around them. */
export interface DeviceHost {
  readonly devices: number;
  readonly durationMs: number;
  readonly arrivals: Arrivals;
  /** Store the image (and the device's own uploads) whenever changes() moved. */
  readonly persists: boolean;
  /** Makes device `i`'s module state its instance's, and returns that instance. */
  enter(i: number): TickRetryApi;
  /** Device `i` has just stored its image. */
  stored(i: number): void;
  /** Device `i` has just been restored from an image. */
  restored(i: number): void;
  /** Sends attempt `attempt` of device i's operation `handle` to the dependency. */
  send(i: number, epoch: number, handle: number, attempt: number, time: number): void;
  /** Runs device i's loop again at `time` (a WAKE event). */
  wakeAt(i: number, time: number): void;
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

/** A device's row: HEAD words, then UPLOAD words per slot of the module (api.slot). */
const Row = {
  /** Time of the pending WAKE event that counts (any other was superseded), or -1. */
  WAKE: 0,
  /** When the next operation begins: the timer's next tick, or the end of the think time. */
  NEXT_BEGIN: 1,
  /** The device's tick at virtual time 0; ticks are virtual ms, wrapping at 2^32. */
  OFFSET: 2,
  /** Its generator's state (think times, upload intervals). */
  RNG: 3,
  /** Boots so far: an answer to a request of an earlier boot finds no connection. */
  EPOCH: 4,
  /** changes() right after the last save, or -1. */
  STORED_CHANGES: 5,
} as const;
const HEAD = 6;
/** Per slot: the live operation's handle (begun, not yet ended) or -1; when its upload
 * began (before a power cut, for an upload carried over it); 1 if it was pending then. */
const Upload = { HANDLE: 0, BEGAN: 1, CARRIED: 2 } as const;
const UPLOAD = 3;
/** Rounded up to whole 64-byte cache lines. */
const ROW = Math.ceil((HEAD + SLOTS * UPLOAD) / 8) * 8;

/** What a device keeps in flash: the image, when it was saved, its uploads and loop slots. */
interface Stored {
  image: Uint8Array;
  savedAt: number;
  uploads: Float64Array;
  slots: LoopSlots;
}

export class FleetDevices extends VirtualTimeHal {
  private readonly rows: Float64Array;
  private readonly loop: Loop;
  private readonly table: LoopTable;
  /** Words of a loop's record in the table. */
  private readonly recordWords: number;
  private readonly rng = new Rng(0);
  /** Only when the fleet persists: each device's flash. */
  private readonly flash: (Stored | undefined)[] = [];
  /** The device a call is about, its row's offset and its instance. */
  private index = 0;
  private row = 0;
  private api: TickRetryApi;
  /** The outcome a 503 without Retry-After means, as the module classifies it. */
  private readonly outcome503: number;

  constructor(private readonly host: DeviceHost) {
    super(0);
    this.rows = new Float64Array(host.devices * ROW);
    this.api = host.enter(0);
    this.outcome503 = classifyHttp(503, 0);
    this.table = new LoopTable(host.devices);
    this.recordWords = this.table.records.length / host.devices;
    this.loop = new Loop(this.api, this, this.table);
  }

  /** Sets device i up, its module initialised: its clock's offset, its generator's seed,
   * a fresh loop, and its first operation at `phase` (settings.drawPhase), so that devices
   * do not begin together (a fleet booted at once would be another experiment). */
  start(i: number, offset: number, seed: number, phase: number): void {
    this.select(i);
    this.rows[this.row + Row.OFFSET] = offset;
    this.rows[this.row + Row.RNG] = new Rng(seed).state;
    this.clear();
    this.rows[this.row + Row.NEXT_BEGIN] = phase;
    this.wakeAt(phase);
  }

  /** Reads device i's row and its loop's record, the first of what a pass of it reads
   * (FleetRun.readAhead); what it returns means nothing. */
  readAhead(i: number): number {
    return this.rows[i * ROW] + this.table.records[i * this.recordWords];
  }

  /** The time of device i's pending wake that counts, or -1. */
  wakeOf(i: number): number {
    return this.rows[i * ROW + Row.WAKE];
  }

  epochOf(i: number): number {
    return this.rows[i * ROW + Row.EPOCH];
  }

  /** A WAKE event of device i: the module has something due, or an operation is to begin. */
  run(i: number, time: number): void {
    this.select(i);
    this.rows[this.row + Row.WAKE] = -1;
    this.pass(time);
  }

  /** The dependency's answer to one of device i's requests arrives. */
  receive(i: number, handle: number, attempt: number, status: number, time: number): void {
    this.select(i);
    const outcome = status === HTTP_OK ? Outcome.SUCCESS : this.outcome503;
    this.answer = { handle, attempt, outcome, retryAfter: 0 };
    this.pass(time);
  }

  /** Power goes: everything in RAM is lost, every connection with it. Returns the uploads
   * pending in what the device had stored. */
  powerOff(i: number): number {
    this.select(i);
    this.rows[this.row + Row.EPOCH]++;
    this.clear();
    return pending(this.flash[i]?.uploads);
  }

  /** What RAM held is gone: no wake, no begin, no save since, no upload, a loop afresh. */
  private clear(): void {
    const { rows, row } = this;
    rows[row + Row.WAKE] = -1;
    rows[row + Row.NEXT_BEGIN] = NEVER;
    rows[row + Row.STORED_CHANGES] = -1;
    for (let s = 0; s < SLOTS; s++) this.setUpload(s, -1, 0, 0);
    this.loop.clear();
  }

  /** Power is back; the module was initialised and configured again as at any boot. Its
   * pending uploads go on from the stored image, or begin afresh; the loop runs from the
   * next run(). Returns whether an image was restored. */
  boot(i: number, time: number, mode: BootMode): boolean {
    this.select(i);
    this.time = time;
    const tick = this.ticks();
    const stored = this.flash[i];
    const restored = stored !== undefined && mode !== "afresh";
    if (restored) this.restore(stored, tick, mode === "restore" ? time - stored.savedAt : 0);
    else if (stored) this.beginAgain(stored.uploads, tick);
    const open = this.host.arrivals === "open";
    this.rows[this.row + Row.NEXT_BEGIN] = open || this.loop.live === 0 ? time + this.gap() : NEVER;
    return restored;
  }

  /** Every connection closed with the power: attempts in flight are lost. `elapsed`: the
   * time since the save as a clock that ran through the cut (an RTC) tells it; a device
   * without one passes 0, and its waits and deadlines resume from the boot. An ended
   * operation was held for an answer that will never come: the loop releases it now. */
  private restore(stored: Stored, tick: number, elapsed: number): void {
    const result = restoreImage(this.api, stored.image, tick, elapsed, RestoreFlag.ATTEMPTS_LOST);
    if (result !== Result.OK) throw new Error(`device ${this.index}: restore refused: ${result}`);
    this.host.restored(this.index);
    this.loop.resume(this.api, stored.slots, true);
    const u = stored.uploads;
    for (let s = 0; s < SLOTS; s++) {
      const handle = u[s * UPLOAD + Upload.HANDLE];
      this.setUpload(s, handle, u[s * UPLOAD + Upload.BEGAN], handle >= 0 ? 1 : 0);
    }
  }

  /** Begins afresh each upload that was pending in the stored uploads. */
  private beginAgain(uploads: Float64Array, tick: number): void {
    for (let s = 0; s < SLOTS; s++) {
      if (uploads[s * UPLOAD + Upload.HANDLE] >= 0)
        this.begin(tick, uploads[s * UPLOAD + Upload.BEGAN], true);
    }
  }

  /** Makes device i the one the loop and the HAL calls are about. */
  private select(i: number): void {
    this.index = i;
    this.row = i * ROW;
    this.api = this.host.enter(i);
    this.offset = this.rows[this.row + Row.OFFSET];
    this.rng.state = this.rows[this.row + Row.RNG];
    this.loop.moveTo(i, this.api);
  }

  /** One pass of the firmware's loop at `time`. */
  private pass(time: number): void {
    this.time = time;
    const due = this.loop.pass();
    if (this.loop.fault !== 0)
      throw new Error(`device ${this.index}: the loop stopped: ${errorName(this.loop.fault)}`);
    const nextBegin = this.rows[this.row + Row.NEXT_BEGIN];
    const next = due === NextDue.IDLE ? nextBegin : Math.min(time + due, nextBegin);
    this.wakeAt(next);
  }

  beginDue(tick: number): void {
    const { rows, row } = this;
    while (rows[row + Row.NEXT_BEGIN] <= this.time) {
      if (rows[row + Row.NEXT_BEGIN] >= this.host.durationMs) {
        rows[row + Row.NEXT_BEGIN] = NEVER;
        break;
      }
      this.begin(tick, this.time, false);
      rows[row + Row.NEXT_BEGIN] =
        this.host.arrivals === "open" ? rows[row + Row.NEXT_BEGIN] + this.gap() : NEVER;
    }
  }

  /** Writes the image, the uploads and the loop's slots to flash when changes() moved. */
  persist(tick: number): void {
    if (!this.host.persists || this.api.changes() === this.rows[this.row + Row.STORED_CHANGES]) return;
    const image = saveImage(this.api, tick);
    if (typeof image === "number") throw new Error(`device ${this.index}: save refused: ${image}`);
    const uploads = this.rows.slice(this.row + HEAD, this.row + HEAD + SLOTS * UPLOAD);
    this.flash[this.index] = { image, savedAt: this.time, uploads, slots: this.loop.saveSlots() };
    this.rows[this.row + Row.STORED_CHANGES] = this.api.changes();
    this.host.stored(this.index);
  }

  startAttempt(handle: number, attempt: number): void {
    this.host.send(this.index, this.rows[this.row + Row.EPOCH], handle, attempt, this.time);
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
    this.setUpload(this.api.slot(h), h, began, carried ? 1 : 0);
  }

  private ended(handle: number, reason: number): void {
    const slot = this.api.slot(handle);
    const at = this.row + HEAD + slot * UPLOAD;
    if (slot < 0 || this.rows[at + Upload.HANDLE] !== handle) {
      throw new Error(`device ${this.index}: handle ${handle} is not held`);
    }
    this.rows[at + Upload.HANDLE] = -1;
    this.host.ended(this.rows[at + Upload.BEGAN], this.time, reason, this.rows[at + Upload.CARRIED] === 1);
    if (this.host.arrivals === "closed" && this.time < this.host.durationMs) {
      this.rows[this.row + Row.NEXT_BEGIN] = this.time + this.gap();
    }
  }

  private setUpload(slot: number, handle: number, began: number, carried: number): void {
    const at = this.row + HEAD + slot * UPLOAD;
    this.rows[at + Upload.HANDLE] = handle;
    this.rows[at + Upload.BEGAN] = began;
    this.rows[at + Upload.CARRIED] = carried;
  }

  /** The device's next gap, its generator's state kept in its row. */
  private gap(): number {
    const gap = this.host.gap(this.rng);
    this.rows[this.row + Row.RNG] = this.rng.state;
    return gap;
  }

  /** The pass's answer is the device's next wake: a pending one at another time no longer
   * counts (the simulator skips it), since a pass there would do nothing. */
  private wakeAt(at: number): void {
    if (at === NEVER) this.rows[this.row + Row.WAKE] = -1;
    else if (this.rows[this.row + Row.WAKE] !== at) {
      this.rows[this.row + Row.WAKE] = at;
      this.host.wakeAt(this.index, at);
    }
  }
}

/** How many uploads were pending in stored uploads (none stored: 0). */
function pending(uploads: Float64Array | undefined): number {
  let n = 0;
  for (let s = 0; uploads !== undefined && s < SLOTS; s++) if (uploads[s * UPLOAD + Upload.HANDLE] >= 0) n++;
  return n;
}
