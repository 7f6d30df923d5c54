// The main loop over the module, the TypeScript twin of boards/tickretry/tickretry_loop.c: the
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

/** What happened in a pass, for logs and traces (tickretry_loop_event in C): an attempt started,
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

/** What the host supplies (tickretry_loop_hal in C). */
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
 * image (tickretry_loop_slots in C). */
export interface LoopSlots {
  /** The handle ended() gave, until it is released; 0: none (no handle is 0). */
  ended: Int32Array;
  /** Attempts started and not yet collected or abandoned. */
  outstanding: Uint16Array;
  /** Operations begun and not yet ended. */
  live: number;
}

/**
 * The slots of a loop with nothing begun, as a fresh module has.
 * @example
 * ```ts
 * loop.resume(api, emptySlots(), false); // a loop that goes on over a fresh module
 * ```
 */
export function emptySlots(): LoopSlots {
  return {
    ended: new Int32Array(Limit.OPERATIONS),
    outstanding: new Uint16Array(Limit.OPERATIONS),
    live: 0,
  };
}

/** Words of a polled entry: the attempt's handle, number and operation id. */
const POLLED = 3;

const SLOTS = Limit.OPERATIONS;

/** A loop's record in a LoopTable: HEAD words (what LoopSlots.live, and the pass's bit
 * sets, hold), then SLOT words per slot of the module. */
const Head = { LIVE: 0, HELD: 1, TIMED: 2, FAULT: 3 } as const;
const HEAD = 4;
/** Per slot: the handle ended() gave (LoopSlots.ended), the attempts out
 * (LoopSlots.outstanding), and the attempt the module has out with its deadline (handle,
 * attempt, deadline), until it is answered in time or timed out. The timing is not stored
 * (tickretry_loop's timing in C): a resume starts it afresh. */
const Slot = { ENDED: 0, OUTSTANDING: 1, HANDLE: 2, ATTEMPT: 3, DEADLINE: 4 } as const;
const SLOT = 5;
const RECORD = HEAD + SLOTS * SLOT;

/**
 * The records of `loops` loops in one typed array, loop i's at i * RECORD: a fleet's million
 * loops so hold them in one buffer, not in millions of objects and small arrays, and a pass
 * touches the few cache lines of its own record (its head and the slots it uses). A Loop
 * made alone has a table of one; one Loop may also serve every row of a table in turn
 * (Loop.moveTo). The loops of one table share its `polled` buffer, so a HAL must not run
 * another loop of its table inside a pass.
 */
export class LoopTable {
  /** Every loop's record. */
  readonly records: Int32Array;
  /** What a pass polled (POLLED words each: handle, attempt, operation id), for its step 10. */
  readonly polled = new Int32Array(POLLED * SLOTS);

  constructor(
    /** How many loops the table holds. */
    readonly loops: number,
  ) {
    this.records = new Int32Array(loops * RECORD);
  }
}

/** The loop's main pass over a module instance and a HAL (the file's head states the pass). */
export class Loop {
  private readonly words: Int32Array;
  /** Where the loop's record begins in the table's `records`. */
  private at = 0;

  /** A loop with nothing begun, in row `index` of `table` (its own table by default). */
  constructor(
    /** The instance the loop drives; resume and moveTo replace it. */
    public api: TickRetryApi,
    private readonly hal: LoopHal,
    private readonly table = new LoopTable(1),
    index = 0,
  ) {
    this.words = table.records;
    this.moveTo(index, api);
    this.clear();
  }

  /** Goes on with the loop in row `index` of the table, whose module state `api` holds: one
   * Loop so runs many, with nothing of theirs outside the table. */
  moveTo(index: number, api: TickRetryApi): void {
    this.at = index * RECORD;
    this.api = api;
  }

  /** Makes the row a loop with nothing begun (its module was initialised afresh). */
  clear(): void {
    this.words.fill(0, this.at, this.at + RECORD);
  }

  /** Operations begun and not yet ended. */
  get live(): number {
    return this.words[this.at + Head.LIVE];
  }

  /** 0, or what poll or ended answered that was neither a handle nor NONE (the engine
   * failed); the loop then does nothing more. */
  get fault(): number {
    return this.words[this.at + Head.FAULT];
  }

  /** A copy of what the loop keeps per slot, plain data to store beside the image. */
  saveSlots(): LoopSlots {
    const slots = emptySlots();
    for (let s = 0; s < SLOTS; s++) {
      slots.ended[s] = this.words[this.slotAt(s) + Slot.ENDED];
      slots.outstanding[s] = this.words[this.slotAt(s) + Slot.OUTSTANDING];
    }
    slots.live = this.live;
    return slots;
  }

  /** Takes up the loop after a restore into `api`, with the slots stored beside the image;
   * attemptsLost: the restore had RestoreFlag.ATTEMPTS_LOST, so nothing is out any more. */
  resume(api: TickRetryApi, slots: LoopSlots, attemptsLost: boolean): void {
    this.api = api;
    this.clear();
    const w = this.words;
    w[this.at + Head.LIVE] = slots.live;
    for (let s = 0; s < SLOTS; s++) {
      w[this.slotAt(s) + Slot.ENDED] = slots.ended[s];
      w[this.slotAt(s) + Slot.OUTSTANDING] = attemptsLost ? 0 : slots.outstanding[s];
      if (slots.ended[s] !== 0) w[this.at + Head.HELD] |= 1 << s;
    }
  }

  /** Begins an operation: its handle, or the module's error. */
  begin(policy: number, now: number): number {
    const handle = this.api.begin(policy, now);
    if (handle >= 0) this.words[this.at + Head.LIVE]++;
    return handle;
  }

  /** The host closed an attempt of `handle` without an answer (its operation ended, or the
   * module timed it out): it is no longer out, and nothing of it will be reported. */
  abandon(handle: number): void {
    const s = this.slotOf(handle);
    if (s >= 0) this.abandonSlot(s);
  }

  private abandonSlot(s: number): void {
    const at = this.slotAt(s) + Slot.OUTSTANDING;
    if (this.words[at] > 0) this.words[at]--;
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
    for (let i = 0; i < count * POLLED; i += POLLED) {
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
      const s = this.slotOf(a.handle);
      if (s >= 0) this.abandonSlot(s);
      // An answer for an operation that ended meanwhile is still reported: STALE_REPORT.
      const result = this.api.report(a.handle, a.attempt, a.outcome, a.retryAfter, now);
      if (result === Result.OK && s >= 0) this.untime(s);
      // Field by field: a spread of `a` cost some 5% of a fleet run.
      const { handle, attempt, outcome } = a;
      this.hal.onEvent?.({ kind: "report", t: now, handle, attempt, outcome, result });
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
    for (let timed = this.words[this.at + Head.TIMED], s = 0; timed !== 0; timed >>>= 1, s++) {
      const entry = this.slotAt(s);
      if ((timed & 1) === 0 || !tickReached(now, this.words[entry + Slot.DEADLINE])) continue;
      if (!applied) this.api.nextDue(now); // applies what is due by now, as report or poll would
      applied = true;
      const handle = this.untime(s);
      if (this.api.lastOutcome(handle) !== Outcome.TIMEOUT) continue;
      this.hal.onEvent?.({ kind: "timeout", t: now, handle, attempt: this.words[entry + Slot.ATTEMPT] });
    }
  }

  /** Drops slot s's timing entry; returns its handle. */
  private untime(s: number): number {
    this.words[this.at + Head.TIMED] &= ~(1 << s);
    return this.words[this.slotAt(s) + Slot.HANDLE];
  }

  private retire(now: number): void {
    const { api, words } = this;
    for (let h = api.ended(now); this.isHandle(h); h = api.ended(now)) {
      const s = this.slotOf(h);
      if (s >= 0) {
        words[this.slotAt(s) + Slot.ENDED] = h;
        words[this.at + Head.HELD] |= 1 << s;
      }
      if (this.live > 0) words[this.at + Head.LIVE]--;
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
    for (let held = words[this.at + Head.HELD], s = 0; held !== 0; held >>>= 1, s++) {
      const slot = this.slotAt(s);
      if ((held & 1) === 0 || words[slot + Slot.OUTSTANDING] !== 0) continue;
      if (api.release(words[slot + Slot.ENDED]) !== Result.OK) continue;
      words[slot + Slot.ENDED] = 0;
      words[this.at + Head.HELD] &= ~(1 << s);
    }
  }

  /** At most one attempt per slot (one is in flight per operation), as the C twin's
   * buffer holds; what is left is still due at the next pass. Returns how many were polled
   * into the table's `polled`. */
  private poll(now: number): number {
    const { words, table } = this;
    let count = 0;
    while (count < SLOTS) {
      const h = this.api.poll(now);
      if (!this.isHandle(h)) break;
      const s = this.slotOf(h);
      const attempt = this.api.attempt(h);
      if (s >= 0) {
        const slot = this.slotAt(s);
        words[slot + Slot.OUTSTANDING]++;
        words[slot + Slot.HANDLE] = h;
        words[slot + Slot.ATTEMPT] = attempt;
        words[slot + Slot.DEADLINE] = this.api.attemptDeadline(h);
        words[this.at + Head.TIMED] |= 1 << s;
      }
      const p = POLLED * count++;
      table.polled[p] = h;
      table.polled[p + 1] = attempt;
      table.polled[p + 2] = this.api.operationId(h);
    }
    return count;
  }

  /** Records an answer that is neither a handle nor NONE as the fault. */
  private isHandle(answer: number): boolean {
    if (answer < 0 && answer !== Result.NONE) this.words[this.at + Head.FAULT] = answer;
    return answer >= 0;
  }

  /** The slot of a handle the loop was given, or -1 (the module refuses it: a host bug). */
  private slotOf(handle: number): number {
    const s = this.api.slot(handle);
    return s >= 0 && s < Limit.OPERATIONS ? s : -1;
  }

  /** Where slot s's words begin in the table's records. */
  private slotAt(s: number): number {
    return this.at + HEAD + s * SLOT;
  }
}
