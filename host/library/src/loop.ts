// The main loop over the module, the TypeScript twin of boards/common/device_loop.c: the
// same HAL (read the ticks, collect finished attempts, hand back dropped connections, say
// when the link is back, begin due work, persist, start an attempt, see events), the same
// pass in the same order, the same per-slot records (C alone adds `serve`, and `sessions`
// so that a firmware without sessions links none of their code). Every host of this
// repository (the simulated device, the fleet devices, the contention client, the
// virtual-time driver, the tests) runs its operations and sessions through it; docs/ABI.md
// ("The main loop") states the pass:
//   1. read now once; nothing else in the pass reads a clock; note each attempt whose
//      deadline passed unanswered, which the module timed out (an event);
//   2. report every attempt that finished by now, in the order the HAL hands them back; a
//      SUCCESS that made a session UP is an "up" event (its connection is established);
//   3. drop every connection the HAL hands back as lost ("drop"): after the reports, since
//      a connection dropped after the answer that brought it up;
//   4. when the HAL says the link is back, kick what waits ("link-up"): after the drops, so
//      the sessions a link loss dropped are kicked too;
//   5. retire: take every ended operation from ended(now), then release each one none of
//      whose attempts is still out (the late-answer rule);
//   6. let the host begin what it has due (a slot freed in 5 is free for it);
//   7. poll until NONE, counting each attempt out at once;
//   8. retire again (polling may end an operation: its last attempt timed out);
//   9. persist, then 10. start the attempts polled in 7 (the persist-before-send rule: the
//      state that holds an attempt is stored before the attempt leaves).
import { Limit, Outcome, Result, State } from "./generated/abi.js";
import type { TickRetryApi } from "./tickretry.js";
import { tickReached } from "./ticks.js";

/** A finished attempt, as the HAL hands it back. */
export interface AttemptAnswer {
  /** The operation's handle, as poll gave it. */
  handle: number;
  /** Which attempt of it answered (attempt(handle) when it started). */
  attempt: number;
  /** Outcome.SUCCESS to Outcome.PERMANENT. */
  outcome: number;
  /** Ticks; 0: none. */
  retryAfter: number;
}

/** What happened in a pass, for logs and traces (device_event in C): an attempt started,
 * an answer reported, an attempt timed out, an operation ended, a session came UP (its
 * connection is established), a lost connection dropped (drop's result: OK, or NOT_UP when
 * the module had it down already), the link's return told (linkUp's result). */
export type LoopEvent =
  | { kind: "start"; t: number; handle: number; attempt: number; operationId: number }
  | { kind: "report"; t: number; handle: number; attempt: number; outcome: number; result: number }
  | { kind: "timeout"; t: number; handle: number; attempt: number }
  | { kind: "end"; t: number; handle: number; attempt: number; operationId: number; reason: number }
  | { kind: "up"; t: number; handle: number; attempt: number; operationId: number }
  | { kind: "drop"; t: number; handle: number; result: number }
  | { kind: "link-up"; t: number; result: number };

/** What the host supplies (device_hal in C). */
export interface LoopHal {
  /** The u32 tick counter; read once per pass. */
  ticks(): number;
  /** One attempt that finished by `now`, earliest first; undefined when none has. Every
   * started attempt comes back here or through Loop.abandon, late or not. */
  collect(now: number): AttemptAnswer | undefined;
  /** One session whose established connection (the "up" event) was lost by `now`, or
   * undefined when none was; a connect attempt that fails is an answer for collect, not a
   * drop. Default: no connection is ever lost. */
  dropped?(now: number): number | undefined;
  /** Whether the link came back since the last pass (Wi-Fi associated again, the broker
   * answers): the loop then tells the module (linkUp), which kicks what waits. Default: never. */
  linkUp?(now: number): boolean;
  /** Begins what the host has due, through Loop.begin at `now`. Default: nothing is begun. */
  beginDue?(now: number): void;
  /** Stores what must survive a restart (the image when changes() moved); before any
   * attempt of the pass leaves. Default: nothing is stored. */
  persist?(now: number): void;
  /** Starts an attempt without waiting for it; operationId is its idempotency key. */
  startAttempt(handle: number, attempt: number, operationId: number, now: number): void;
  /** Sees every event, as it happens. Default: events go unseen. */
  onEvent?(event: LoopEvent): void;
}

/** What the loop keeps per slot of the module, as plain data a host may store beside the
 * image (device_slots in C). */
export interface LoopSlots {
  /** The handle ended() gave, until it is released; 0: none (no handle is 0). */
  ended: Int32Array;
  /** Attempts started and not yet collected or abandoned. */
  outstanding: Uint16Array;
  /** Operations begun and not yet ended. */
  live: number;
}

/** The slots of a loop with nothing begun, as a fresh module has. */
export function emptySlots(): LoopSlots {
  return {
    ended: new Int32Array(Limit.OPERATIONS),
    outstanding: new Uint16Array(Limit.OPERATIONS),
    live: 0,
  };
}

/** Words per slot in a LoopTable's timing: the attempt's handle, number and deadline. */
const TIMING = 3;

const SLOTS = Limit.OPERATIONS;

/**
 * The per-slot records of `loops` loops in a few typed arrays, loop i's slot s at
 * i * OPERATIONS + s: a fleet's million loops so hold them in four arrays, not in millions
 * of small ones of their own (a typed array of more than 64 bytes is a separate buffer
 * outside V8's heap, costly by the million). A Loop made alone has a table of one. The
 * loops of one table share its `polled` buffer, so a HAL must not run another loop of its
 * table inside a pass.
 */
export class LoopTable {
  /** LoopSlots.ended of every loop. */
  readonly ended: Int32Array;
  /** LoopSlots.outstanding of every loop. */
  readonly outstanding: Uint16Array;
  /** Per slot, the attempt the module has out and its deadline (TIMING words: handle,
   * attempt, deadline), until it is answered in time or timed out; not stored (device_loop's
   * timing in C): a resume starts it afresh. */
  readonly timing: Int32Array;
  /** What a pass polled (TIMING words each: handle, attempt, operation id), for its step 10. */
  readonly polled = new Int32Array(TIMING * SLOTS);

  constructor(
    /** How many loops the table holds. */
    readonly loops: number,
  ) {
    this.ended = new Int32Array(loops * SLOTS);
    this.outstanding = new Uint16Array(loops * SLOTS);
    this.timing = new Int32Array(loops * SLOTS * TIMING);
  }
}

/** The loop's main pass over a module instance and a HAL (the file's head states the pass). */
export class Loop {
  /** Where this loop's slots begin in the table's arrays. */
  private readonly at: number;
  private readonly ended: Int32Array;
  private readonly outstanding: Uint16Array;
  private readonly timing: Int32Array;
  /** Operations begun and not yet ended (LoopSlots.live). */
  private liveCount = 0;
  /** Bit s: slot s holds an ended handle; bit s of timed: slot s has a timing entry. A pass
   * visits only those slots (of a fleet's million loops, the memory it touches). */
  private held = 0;
  private timed = 0;
  /** 0, or what poll or ended answered that was neither a handle nor NONE (the engine
   * failed); the loop then does nothing more. */
  fault = 0;

  /** A loop with nothing begun, in row `index` of `table` (its own table by default). */
  constructor(
    /** The instance the loop drives; resume replaces it. */
    public api: TickRetryApi,
    private readonly hal: LoopHal,
    private readonly table = new LoopTable(1),
    index = 0,
  ) {
    this.at = index * SLOTS;
    ({ ended: this.ended, outstanding: this.outstanding, timing: this.timing } = table);
    this.ended.fill(0, this.at, this.at + SLOTS);
    this.outstanding.fill(0, this.at, this.at + SLOTS);
  }

  /** Operations begun and not yet ended. */
  get live(): number {
    return this.liveCount;
  }

  /** A copy of what the loop keeps per slot, plain data to store beside the image. */
  saveSlots(): LoopSlots {
    return {
      ended: this.ended.slice(this.at, this.at + SLOTS),
      outstanding: this.outstanding.slice(this.at, this.at + SLOTS),
      live: this.liveCount,
    };
  }

  /** Takes up the loop after a restore into `api`, with the slots stored beside the image;
   * attemptsLost: the restore had RestoreFlag.ATTEMPTS_LOST, so nothing is out any more. */
  resume(api: TickRetryApi, slots: LoopSlots, attemptsLost: boolean): void {
    this.api = api;
    this.ended.set(slots.ended, this.at);
    this.outstanding.set(slots.outstanding, this.at);
    this.liveCount = slots.live;
    this.fault = 0;
    this.timed = 0;
    this.held = 0;
    for (let s = 0; s < SLOTS; s++) if (this.ended[this.at + s] !== 0) this.held |= 1 << s;
    if (attemptsLost) this.outstanding.fill(0, this.at, this.at + SLOTS);
  }

  /** Begins an operation: its handle, or the module's error. */
  begin(policy: number, now: number): number {
    const handle = this.api.begin(policy, now);
    if (handle >= 0) this.liveCount++;
    return handle;
  }

  /** The host closed an attempt of `handle` without an answer (its operation ended, or the
   * module timed it out): it is no longer out, and nothing of it will be reported. */
  abandon(handle: number): void {
    const s = this.slotOf(handle);
    if (s >= 0 && this.outstanding[this.at + s] > 0) this.outstanding[this.at + s]--;
  }

  /** One pass (above): the ticks until the module has work (0: now; NextDue.IDLE when
   * nothing is live), or 0 once the loop has a fault. */
  pass(): number {
    const now = this.hal.ticks();
    if (this.fault === 0) this.noteTimeouts(now);
    if (this.fault === 0) this.report(now);
    if (this.fault === 0) this.connectionEvents(now);
    if (this.fault === 0) this.retire(now);
    if (this.fault === 0) this.hal.beginDue?.(now);
    const count = this.fault === 0 ? this.poll(now) : 0;
    if (this.fault === 0) this.retire(now);
    if (this.fault !== 0) return 0;
    this.hal.persist?.(now);
    const p = this.table.polled;
    for (let i = 0; i < count * TIMING; i += TIMING) {
      const handle = p[i];
      const attempt = p[i + 1];
      const operationId = p[i + 2];
      this.hal.onEvent?.({ kind: "start", t: now, handle, attempt, operationId });
      this.hal.startAttempt(handle, attempt, operationId, now);
    }
    return this.api.nextDue(now);
  }

  private report(now: number): void {
    for (let a = this.hal.collect(now); a !== undefined; a = this.hal.collect(now)) {
      this.abandon(a.handle);
      // An answer for an operation that ended meanwhile is still reported: STALE_REPORT.
      const result = this.api.report(a.handle, a.attempt, a.outcome, a.retryAfter, now);
      const s = this.slotOf(a.handle);
      if (result === Result.OK && s >= 0) this.untime(s);
      this.hal.onEvent?.({ kind: "report", t: now, ...a, result });
      if (result !== Result.OK || a.outcome !== Outcome.SUCCESS) continue;
      if (this.api.state(a.handle) !== State.UP) continue;
      const operationId = this.api.operationId(a.handle);
      this.hal.onEvent?.({ kind: "up", t: now, handle: a.handle, attempt: a.attempt, operationId });
    }
  }

  /** Steps 3 and 4: the connections the host lost since the last pass, then the link's
   * return. A drop the module answers NOT_UP (it had the session down already: a restore)
   * changes nothing there. */
  private connectionEvents(now: number): void {
    for (let h = this.hal.dropped?.(now); h !== undefined; h = this.hal.dropped?.(now)) {
      this.hal.onEvent?.({ kind: "drop", t: now, handle: h, result: this.api.drop(h, now) });
    }
    if (this.hal.linkUp?.(now)) this.hal.onEvent?.({ kind: "link-up", t: now, result: this.api.linkUp(now) });
  }

  /** Step 1: an attempt whose deadline has passed unanswered was timed out by the module,
   * unless its operation went another way meanwhile (its last outcome says which). */
  private noteTimeouts(now: number): void {
    let applied = false;
    for (let timed = this.timed, s = 0; timed !== 0; timed >>>= 1, s++) {
      const entry = (this.at + s) * TIMING;
      if ((timed & 1) === 0 || !tickReached(now, this.timing[entry + 2])) continue;
      if (!applied) this.api.nextDue(now); // applies what is due by now, as report or poll would
      applied = true;
      const handle = this.untime(s);
      if (this.api.lastOutcome(handle) !== Outcome.TIMEOUT) continue;
      this.hal.onEvent?.({ kind: "timeout", t: now, handle, attempt: this.timing[entry + 1] });
    }
  }

  /** Drops slot s's timing entry; returns its handle. */
  private untime(s: number): number {
    this.timed &= ~(1 << s);
    return this.timing[(this.at + s) * TIMING];
  }

  private retire(now: number): void {
    const { api, at, ended } = this;
    for (let h = api.ended(now); this.isHandle(h); h = api.ended(now)) {
      const s = this.slotOf(h);
      if (s >= 0) {
        ended[at + s] = h;
        this.held |= 1 << s;
      }
      if (this.liveCount > 0) this.liveCount--;
      this.hal.onEvent?.({
        kind: "end",
        t: now,
        handle: h,
        attempt: api.attempt(h),
        operationId: api.operationId(h),
        reason: api.endReason(h),
      });
    }
    // The late-answer rule: an answer before the release gets STALE_REPORT; none comes after.
    for (let held = this.held, s = 0; held !== 0; held >>>= 1, s++) {
      if ((held & 1) === 0 || this.outstanding[at + s] !== 0) continue;
      if (api.release(ended[at + s]) !== Result.OK) continue;
      ended[at + s] = 0;
      this.held &= ~(1 << s);
    }
  }

  /** At most one attempt per slot (one is in flight per operation), as the C twin's
   * buffer holds; what is left is still due at the next pass. Returns how many were polled
   * into the table's `polled`. */
  private poll(now: number): number {
    let count = 0;
    while (count < SLOTS) {
      const h = this.api.poll(now);
      if (!this.isHandle(h)) break;
      const s = this.slotOf(h);
      const attempt = this.api.attempt(h);
      if (s >= 0) {
        this.outstanding[this.at + s]++;
        record(this.timing, this.at + s, h, attempt, this.api.attemptDeadline(h));
        this.timed |= 1 << s;
      }
      record(this.table.polled, count++, h, attempt, this.api.operationId(h));
    }
    return count;
  }

  /** Records an answer that is neither a handle nor NONE as the fault. */
  private isHandle(answer: number): boolean {
    if (answer < 0 && answer !== Result.NONE) this.fault = answer;
    return answer >= 0;
  }

  /** The slot of a handle the loop was given, or -1 (the module refuses it: a host bug). */
  private slotOf(handle: number): number {
    const s = this.api.slot(handle);
    return s >= 0 && s < Limit.OPERATIONS ? s : -1;
  }
}

/** Writes entry `i` of a table of TIMING words each: a handle, its attempt, and a third
 * word (a deadline, or an operation id). */
function record(table: Int32Array, i: number, handle: number, attempt: number, third: number): void {
  table[i * TIMING] = handle;
  table[i * TIMING + 1] = attempt;
  table[i * TIMING + 2] = third;
}
