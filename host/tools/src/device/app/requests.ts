// What the page and the command line ask of the loop, kept until the next pass carries it
// out: a reading, a stall, a reboot or a deep sleep, and the asks that want an answer
// (settings, the device password, a module swap, the upstream's scenario, a broker
// restart, holding or releasing a breaker, a reset of the loop's maxima). Asking never touches the module, the store or the clock; the pass does,
// between its own steps, and answers through the promise the asker awaits. While the
// device sleeps no pass runs, so an ask waits for the wake, as a board that sleeps answers
// nothing. What the page reads back is the status snapshot the pass produced (Snapshot).
import type { DeviceStatus } from "./status.js";
import { LOOP, PAGE } from "../generated/app-config.js";

/** The longest main-loop stall the page or the command line may ask for, ms (boards/app/config.json). */
export const MAX_STALL_MS = PAGE.maxStallMs;

/** The longest deep sleep the page may ask for, s. */
export const MAX_SLEEP_S = PAGE.maxSleepS;

export type PowerRequest = { kind: "reboot" } | { kind: "deep sleep"; ms: number };

/** An ask that wants an answer: the page's form or bytes as they came, checked by the pass. */
export type Ask =
  | { kind: "settings"; form: URLSearchParams; notUtf8: Set<string> }
  /** A hash the page computed (PBKDF2 takes the page's time, not the loop's); `first`: a first setup. */
  | { kind: "password"; hash: string; first: boolean }
  /** An upload's module, its signature checked by the page: the pass checks it and starts its trial run. */
  | { kind: "module"; module: Buffer }
  /** What a passed trial asks: swap that module in (device/asks.ts). */
  | { kind: "swap"; module: Buffer; version: number }
  | { kind: "scenario"; name: string }
  | { kind: "broker restart" }
  /** holdBreaker (`hold`) or releaseBreaker of `policy`. */
  | { kind: "breaker"; policy: number; hold: boolean }
  | { kind: "loop reset" }
  /** A policy draft from the Policy view, for the upload policy (app/policy-apply.ts). */
  | { kind: "policy"; form: URLSearchParams };

/** The pass's answer: a status and a message key of boards/page/routes.json (none: the reason alone), with a reason or the refused fields. */
export interface Reply {
  status: number;
  key?: string;
  reason?: string;
  fields?: Record<string, string>;
}

export interface Asked {
  ask: Ask;
  reply: (r: Reply) => void;
}

export class Requests {
  /** Readings asked for and not yet taken (a test, the periodic timer). */
  private uploads = 0;
  /** The page's "Upload now" since the last pass. */
  private uploadAsked = false;
  private stallMs = 0;
  private power: PowerRequest | undefined;
  /** When the power request falls due: set by the first pass that sees it. */
  private powerAtMs: number | undefined;
  private asked: Asked[] = [];
  /** What the last pass made for the page to read. */
  readonly snapshot = new Snapshot();

  /** One more reading at the next pass. */
  upload(): void {
    this.uploads++;
  }

  /** The page's "Upload now": one reading at the next pass, however often pressed before it (the board's flag, requests.c). */
  askUpload(): void {
    this.uploadAsked = true;
  }

  /** Blocks the next pass for `ms`, as a slow flash write blocks a firmware loop. */
  stall(ms: number): void {
    this.stallMs = Math.max(this.stallMs, ms);
  }

  /** A reset LOOP.powerAfterMs after the next pass (its answer has left); the module comes back from the stored state. */
  reboot(): void {
    this.power = { kind: "reboot" };
  }

  /** As reboot, a deep sleep: nothing runs for `ms`, then the module comes back from the stored state. */
  deepSleep(ms: number): void {
    this.power = { kind: "deep sleep", ms };
  }

  /** `ask` at the next pass; resolves with the pass's answer. */
  ask(ask: Ask): Promise<Reply> {
    return new Promise((reply) => this.post(ask, reply));
  }

  /** `ask` at the next pass, whose answer goes to `reply` as the pass gives it. */
  post(ask: Ask, reply: (r: Reply) => void): void {
    this.asked.push({ ask, reply });
  }

  /** Whether an ask waits for the next pass. */
  get waiting(): boolean {
    return this.asked.length > 0;
  }

  /** Takes one asked reading: false when none is left. */
  takeUpload(): boolean {
    if (this.uploads > 0) {
      this.uploads--;
      return true;
    }
    const asked = this.uploadAsked;
    this.uploadAsked = false;
    return asked;
  }

  /** The stall asked for (0: none), once. */
  takeStall(): number {
    const ms = this.stallMs;
    this.stallMs = 0;
    return ms;
  }

  /** The reboot or sleep asked for, once it falls due at the pass at `nowMs` (as requests.c's app_requests_power_due). */
  takePower(nowMs: number): PowerRequest | undefined {
    const power = this.power;
    if (power === undefined) return undefined;
    this.powerAtMs ??= nowMs + LOOP.powerAfterMs;
    if (nowMs < this.powerAtMs) return undefined;
    this.power = this.powerAtMs = undefined;
    return power;
  }

  /** Every ask waiting, oldest first, once. */
  takeAsks(): Asked[] {
    const asked = this.asked;
    this.asked = [];
    return asked;
  }
}

/** What the page reads of the device: the status, and the module's bytes (the playground loads the module the device runs). */
export interface Seen {
  status: DeviceStatus;
  moduleBytes: Buffer;
}

/** Passes a snapshot is kept fresh for after a read: about a second of idle passes. */
const WATCHED_PASSES = 200;

/**
 * The status the loop produced, for the page: made at the end of a pass while someone reads
 * it (a pass costs nothing more while nobody watches, as in the virtual-time tests), and
 * when the power goes. A read finds the last pass's, or waits for the next pass to make it.
 */
export class Snapshot {
  private status: Seen | undefined;
  /** Passes left that make a snapshot without a read. */
  private watched = 0;
  private waiting: ((s: Seen) => void)[] = [];

  /** The pass's end: makes the snapshot while someone reads or waits for it. */
  passEnded(make: () => Seen): void {
    if (this.watched === 0) {
      this.status = undefined; // stale from here on
      return;
    }
    this.watched--;
    this.settle(make());
  }

  /** No pass follows until the power comes back (a sleep, a stop): `make` is what the page reads meanwhile. */
  standsStill(make: () => Seen): void {
    this.settle(make());
  }

  /** The snapshot of the last pass, or of the next one when the last made none. */
  read(): Seen | Promise<Seen> {
    this.watched = WATCHED_PASSES;
    return this.status ?? new Promise((resolve) => this.waiting.push(resolve));
  }

  private settle(status: Seen): void {
    this.status = status;
    for (const w of this.waiting.splice(0)) w(status);
  }
}
