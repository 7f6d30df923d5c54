// The reference model of host/library/build/tickretry.wasm, written from docs/ABI.md alone (never from
// assembly/): the same exports, the same arguments (any 32-bit values), the same results.
// Model-based tests run it beside the module and compare after every call.
import {
  ABI_VERSION,
  Breaker,
  BudgetFlag,
  Counter,
  EndReason,
  Error as Err,
  Image,
  Limit,
  NextDue,
  OpFlag,
  Field,
  Outcome,
  PolicyFlag,
  RestoreFlag,
  Result,
  State,
} from "../../../host/library/src/generated/abi.js";
import { tickAfter, tickReached, ticksUntil } from "../../../host/library/src/ticks.js";
import { ALL_POLICY_FLAGS, ceiling, drawWait, worstCase, type Policy } from "./backoff.js";
import { Budget } from "./budget.js";
import { decodeImage, encodeImage, type Saved, type SavedSlot } from "./image.js";
import { Prng } from "./prng.js";

interface Op {
  state: number;
  generation: number;
  policy: number;
  attempt: number;
  endReason: number;
  lastOutcome: number;
  nextAttemptAt: number;
  attemptDeadline: number;
  deadline: number;
  hasDeadline: boolean;
  due: boolean;
  /** DONE and handed out by ended(). */
  handedOut: boolean;
  id: number;
  /** The previous drawn wait (DECORRELATED); 0 when none. */
  prev: number;
  /** The cost withdrawn by the last retry; 0 before the first retry. */
  lastRetryCost: number;
  /** The backoff level: failed attempts and drops since begin or since last stable. */
  level: number;
  session: boolean;
  /** WAITING, its wait over, held by its breaker. */
  held: boolean;
  /** IN_FLIGHT: the attempt is its breaker's probe. */
  probe: boolean;
  dropped: boolean;
}

/** A policy's circuit breaker (docs/ABI.md, Circuit breaker). */
interface BreakerState {
  state: number;
  failures: number;
  opens: number;
  breakEnds: number;
}

const closedBreaker = (): BreakerState => ({ state: Breaker.CLOSED, failures: 0, opens: 0, breakEnds: 0 });

const freeOp = (generation: number): Op => ({
  state: State.FREE,
  generation,
  policy: 0,
  attempt: 0,
  endReason: EndReason.NONE,
  lastOutcome: Outcome.NONE,
  nextAttemptAt: 0,
  attemptDeadline: 0,
  deadline: 0,
  hasDeadline: false,
  due: false,
  handedOut: false,
  id: 0,
  prev: 0,
  lastRetryCost: 0,
  level: 0,
  session: false,
  held: false,
  probe: false,
  dropped: false,
});

const u32 = (x: number) => x >>> 0;
const isSpan = (x: number) => u32(x) <= Limit.MAX_SPAN;
const isLive = (op: Op) =>
  op.state === State.WAITING || op.state === State.IN_FLIGHT || op.state === State.UP;
const opFlagsOf = (op: Op) =>
  (op.due ? OpFlag.DUE : 0) |
  (op.hasDeadline ? OpFlag.HAS_DEADLINE : 0) |
  (op.handedOut ? OpFlag.HANDED_OUT : 0) |
  (op.session ? OpFlag.SESSION : 0) |
  (op.probe ? OpFlag.PROBE : 0) |
  (op.dropped ? OpFlag.DROPPED : 0) |
  (op.held ? OpFlag.HELD : 0);
const FAILED = new Set<number>([Outcome.TRANSIENT, Outcome.THROTTLED, Outcome.AMBIGUOUS, Outcome.TIMEOUT]);
/** Counter of the end reason `reason` (ENDED_SUCCEEDED is reason SUCCEEDED's). */
const endedCounter = (reason: number) => Counter.ENDED_SUCCEEDED + reason - EndReason.SUCCEEDED;

/**
 * Where the model's image area starts. docs/ABI.md leaves the offset to the module (any
 * fixed one with the area inside MEMORY_LIMIT), so harnesses read each target's own.
 */
const IMAGE_ADDRESS = 1024;

export class SchedulerModel {
  private initialized = false;
  /** The module's own notion of now; undefined until the first advance after init. */
  clock: number | undefined;
  private prng = new Prng();
  private nextId = 0;
  private policies: (Policy | undefined)[] = [];
  private breakers: BreakerState[] = [];
  private budget = new Budget();
  private ops: Op[] = [];
  private counters: number[] = [];
  /** changes(): its value, and the flag every durable change sets. */
  private changeCount = 0;
  private changed = false;
  /** The model's linear memory: only the image area is used. */
  readonly memory = { buffer: new ArrayBuffer(Limit.MEMORY_LIMIT) };

  constructor() {
    this.wipe();
  }

  private wipe(): void {
    this.clock = undefined;
    this.nextId = 0;
    this.policies = new Array(Limit.POLICIES).fill(undefined);
    this.breakers = Array.from({ length: Limit.POLICIES }, closedBreaker);
    this.budget = new Budget();
    this.ops = Array.from({ length: Limit.OPERATIONS }, () => freeOp(0));
    this.counters = new Array(Counter.COUNT).fill(0);
  }

  // ---- time -------------------------------------------------------------------------

  /** Advances the clock to `now` and applies every expired timer ("Time" in docs/ABI.md). */
  private advance(now: number): void {
    now = u32(now);
    if (this.clock === undefined) {
      this.clock = now;
      return;
    }
    const step = ticksUntil(this.clock, now);
    let fault = false;
    if (step >= 0) {
      this.clock = now;
    } else if (step < -Limit.BACKSTEP_TOLERANCE) {
      this.clock = now;
      fault = true;
      if (this.ops.some(isLive)) this.count(Counter.CLOCK_FAULTS);
    }
    this.visitBreakers(fault);
    for (const op of this.ops) this.visit(op, fault, false);
  }

  private visitBreakers(fault: boolean): void {
    this.breakers.forEach((b, id) => {
      if (b.state === Breaker.OPEN && (fault || this.expired(b.breakEnds))) this.halfOpen(id);
    });
  }

  private expired(t: number): boolean {
    return tickReached(this.clock!, t);
  }

  private visit(op: Op, fault: boolean, lost: boolean): void {
    if (op.state === State.WAITING) {
      if (op.hasDeadline && (fault || this.expired(op.deadline))) this.end(op, EndReason.DEADLINE);
      else if (!op.due && !op.held && (fault || this.expired(op.nextAttemptAt))) this.makeDue(op);
    } else if (op.state === State.IN_FLIGHT && lost) {
      this.fail(op, Outcome.AMBIGUOUS, 0, false);
    } else if (op.state === State.IN_FLIGHT && (fault || this.expired(op.attemptDeadline))) {
      this.count(Counter.ATTEMPT_TIMEOUTS);
      this.fail(op, Outcome.TIMEOUT, 0, fault);
    } else if (op.state === State.UP) {
      const stableAt = tickAfter(op.nextAttemptAt, this.policies[op.policy]!.stableAfter);
      if (op.level > 0 && (fault || this.expired(stableAt))) op.level = 0;
      if (lost) this.drop_(op);
    }
  }

  // ---- the breaker and the spread -----------------------------------------------------

  /** Retry-After bounded by the policy's maxRetryAfter (0: maxDelay); a larger one is counted. */
  private boundRetryAfter(p: Policy, retryAfter: number): number {
    const bound = p.maxRetryAfter !== 0 ? p.maxRetryAfter : p.maxDelay;
    if (retryAfter <= bound) return retryAfter;
    this.count(Counter.RETRY_AFTER_CLAMPED);
    return bound;
  }

  private lets(policy: number): boolean {
    const s = this.breakers[policy].state;
    return s === Breaker.CLOSED || s === Breaker.HALF_OPEN;
  }

  /** A waiting operation whose wait is over: DUE, or HELD by its breaker. */
  private makeDue(op: Op): void {
    op.due = this.lets(op.policy);
    op.held = !op.due;
  }

  /** The operation starts `wait` ticks from the clock. */
  private startAt(op: Op, wait: number): void {
    op.nextAttemptAt = tickAfter(this.clock!, wait);
    op.due = op.held = false;
    if (wait === 0) this.makeDue(op);
  }

  private spreadDraw(policy: number): number {
    const spread = this.policies[policy]!.spread;
    if (spread === 0) return 0;
    this.changed = true;
    return this.prng.uniform(0, spread);
  }

  private opsOf(policy: number): Op[] {
    return this.ops.filter((op) => op.state === State.WAITING && op.policy === policy);
  }

  private halfOpen(policy: number): void {
    this.breakers[policy].state = Breaker.HALF_OPEN;
    for (const op of this.opsOf(policy)) if (op.held) [op.held, op.due] = [false, true];
  }

  private open(policy: number): void {
    const b = this.breakers[policy];
    const p = this.policies[policy]!;
    b.state = Breaker.OPEN;
    b.failures = 0;
    b.opens = Math.min(b.opens + 1, 255);
    const c = ceiling(Math.min(p.breakBase, p.breakCap), b.opens, p.breakCap);
    const half = Math.floor(c / 2);
    const wait = c - half + this.prng.uniform(0, half);
    b.breakEnds = tickAfter(this.clock!, wait);
    this.count(Counter.BREAKER_OPENS);
    if (wait === 0) return this.halfOpen(policy); // a break of 0 ticks is over as it begins
    for (const op of this.opsOf(policy)) if (op.due) [op.held, op.due] = [true, false];
  }

  private close(policy: number): void {
    const b = this.breakers[policy];
    b.state = Breaker.CLOSED;
    b.opens = 0;
    this.changed = true;
    // A probe still in flight (another attempt's success closed the breaker) is one no longer.
    for (const op of this.ops) if (op.policy === policy) op.probe = false;
    for (const op of this.opsOf(policy)) if (op.due || op.held) this.startAt(op, this.spreadDraw(policy));
  }

  /** The breaker's rules for an attempt of op that ended with `outcome`. */
  private attemptEnded(op: Op, outcome: number): void {
    const b = this.breakers[op.policy];
    const probe = op.probe;
    op.probe = false;
    if (b.state === Breaker.ISOLATED) return; // only releaseBreaker or setPolicy ends it
    if (outcome === Outcome.SUCCESS) {
      b.failures = 0;
      if (b.state !== Breaker.CLOSED) this.close(op.policy);
    } else if (outcome === Outcome.PERMANENT) {
      if (probe) this.halfOpen(op.policy);
    } else if (probe) {
      this.open(op.policy);
    } else if (
      b.state === Breaker.CLOSED &&
      this.policies[op.policy]!.breakAfter !== 0 &&
      FAILED.has(outcome)
    ) {
      b.failures++;
      if (b.failures >= this.policies[op.policy]!.breakAfter) this.open(op.policy);
    }
  }

  // ---- transitions --------------------------------------------------------------------

  private count(id: number): void {
    this.counters[id] = u32(this.counters[id] + 1);
    this.changed = true;
  }

  private end(op: Op, reason: number): void {
    op.state = State.DONE;
    op.endReason = reason;
    op.due = op.held = op.probe = false;
    this.count(endedCounter(reason));
  }

  /** An UP session's connection went down. */
  private drop_(op: Op): void {
    const p = this.policies[op.policy]!;
    op.state = State.WAITING;
    op.dropped = true;
    op.level = Math.min(op.level + 1, 255);
    // SPREAD_DROP: the first reconnect is a point of the spread window; the backoff's
    // previous wait stays as it was.
    if ((p.flags & PolicyFlag.SPREAD_DROP) !== 0) this.startAt(op, this.spreadDraw(op.policy));
    else {
      const drawn = drawWait(p, Outcome.TRANSIENT, op.level, op.prev, this.prng);
      op.prev = drawn;
      this.startAt(op, drawn);
    }
    this.count(Counter.DROPS);
  }

  /** "Failure" in docs/ABI.md: a reported failure or a timeout, at the current clock. */
  private fail(op: Op, outcome: number, retryAfter: number, fault: boolean): void {
    op.lastOutcome = outcome;
    op.level = Math.min(op.level + 1, 255);
    this.attemptEnded(op, outcome);
    if (outcome === Outcome.PERMANENT) return this.end(op, EndReason.PERMANENT);
    const request = !op.session;
    if (request) this.budget.onFailure();
    const p = this.policies[op.policy]!;
    const mayHaveRun = outcome === Outcome.AMBIGUOUS || outcome === Outcome.TIMEOUT;
    if (request && mayHaveRun && (p.flags & PolicyFlag.IDEMPOTENT) === 0)
      return this.end(op, EndReason.AMBIGUOUS);
    if (p.maxAttempts !== 0 && op.level >= p.maxAttempts) return this.end(op, EndReason.EXHAUSTED);
    const drawn = drawWait(p, outcome, op.level, op.prev, this.prng);
    op.prev = drawn;
    const wait = Math.max(drawn, this.boundRetryAfter(p, retryAfter));
    if (op.hasDeadline && (fault || wait >= ticksUntil(this.clock!, op.deadline))) {
      return this.end(op, EndReason.DEADLINE);
    }
    if (request) {
      const cost = outcome === Outcome.TIMEOUT ? this.budget.timeoutRetryCost : this.budget.retryCost;
      if (!this.budget.allowRetry(cost)) {
        this.count(Counter.RETRIES_DENIED);
        return this.end(op, EndReason.BUDGET);
      }
      op.lastRetryCost = cost;
    }
    op.state = State.WAITING;
    this.startAt(op, wait);
    this.count(Counter.RETRIES_SCHEDULED);
  }

  /** The operation a handle names, or undefined when it is not a valid handle. */
  private find(handle: number): Op | undefined {
    if (!this.initialized) return undefined;
    const h = u32(handle);
    const op = this.ops[h & (Limit.OPERATIONS - 1)];
    if (op.state === State.FREE || op.generation !== h >>> Limit.SLOT_BITS) return undefined;
    return op;
  }

  private handleOf(op: Op): number {
    return (op.generation << Limit.SLOT_BITS) | this.ops.indexOf(op);
  }

  // ---- exports ------------------------------------------------------------------------

  init(seedLo: number, seedHi: number): number {
    this.wipe();
    this.initialized = true;
    this.changed = true;
    this.prng.seed(seedLo, seedHi);
    this.nextId = this.prng.next() & 0x7fffffff;
    return Result.OK;
  }

  setPolicy(
    id: number,
    maxAttempts: number,
    attemptTimeout: number,
    baseDelay: number,
    maxDelay: number,
    throttleBaseDelay: number,
    deadline: number,
    flags: number,
    stableAfter = 0,
    spread = 0,
    breakAfter = 0,
    breakBase = 0,
    breakCap = 0,
    maxRetryAfter = 0,
  ): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    if (u32(id) >= Limit.POLICIES) return Err.BAD_POLICY;
    const spans = [attemptTimeout, baseDelay, maxDelay, throttleBaseDelay, deadline, stableAfter, spread];
    if (![...spans, breakBase, breakCap, maxRetryAfter].every(isSpan)) return Err.SPAN_TOO_LARGE;
    if (u32(maxAttempts) > Limit.MAX_ATTEMPTS || attemptTimeout === 0 || baseDelay > maxDelay)
      return Err.BAD_FIELD;
    if ((u32(flags) & ~ALL_POLICY_FLAGS) !== 0) return Err.BAD_FIELD;
    if ((flags & PolicyFlag.SESSION) !== 0 && deadline !== 0) return Err.BAD_FIELD;
    if (u32(breakAfter) > 255 || breakBase > breakCap) return Err.BAD_FIELD;
    this.changed = true;
    this.policies[id] = {
      maxAttempts,
      attemptTimeout,
      baseDelay,
      maxDelay,
      throttleBaseDelay,
      deadline,
      flags,
      stableAfter,
      spread,
      breakAfter,
      breakBase,
      breakCap,
      maxRetryAfter,
    };
    const b = this.breakers[id];
    Object.assign(b, { state: Breaker.CLOSED, failures: 0, opens: 0 });
    for (const op of this.ops) {
      if (op.policy !== id) continue;
      if (op.held) [op.held, op.due] = [false, true];
      op.probe = false;
    }
    return Result.OK;
  }

  setBudget(...fields: number[]): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    // In the image's order (BUDGET_KEYS): the call's `initial` is where tokens start.
    const [capacity, initial, , , threshold, , , , flags] = fields;
    if (!fields.every(isSpan) || initial > capacity || threshold > capacity) return Err.BAD_FIELD;
    if ((flags & ~(BudgetFlag.REFUND_ON_SUCCESS | BudgetFlag.OFF)) !== 0) return Err.BAD_FIELD;
    // OFF is "no budget": any other field set with it is a budget the caller meant.
    const others = fields.slice(0, 8).some((v) => v !== 0) || (flags & BudgetFlag.REFUND_ON_SUCCESS) !== 0;
    if ((flags & BudgetFlag.OFF) !== 0 && others) return Err.BAD_FIELD;
    this.changed = true;
    BUDGET_KEYS.forEach((k, i) => (this.budget[k] = fields[i]));
    return Result.OK;
  }

  begin(policy: number, now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const p = u32(policy) < Limit.POLICIES ? this.policies[policy] : undefined;
    if (p === undefined) return Err.BAD_POLICY;
    const slot = this.ops.findIndex((op) => op.state === State.FREE);
    if (slot < 0) return Err.TABLE_FULL;
    this.advance(now);
    const clock = this.clock!;
    const old = this.ops[slot];
    const op = freeOp(old.generation === 0xffff ? 1 : old.generation + 1);
    Object.assign(op, {
      state: State.WAITING,
      policy,
      attemptDeadline: clock,
      deadline: tickAfter(clock, p.deadline),
      hasDeadline: p.deadline !== 0,
      session: (p.flags & PolicyFlag.SESSION) !== 0,
      id: this.nextId,
    });
    this.ops[slot] = op;
    this.startAt(op, (p.flags & PolicyFlag.SPREAD_FIRST) !== 0 ? this.spreadDraw(policy) : 0);
    this.nextId = (this.nextId + 1) & 0x7fffffff;
    this.count(Counter.BEGUN);
    return this.handleOf(op);
  }

  poll(now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    this.advance(now);
    const op = this.ops.find((o) => o.state === State.WAITING && o.due);
    if (op === undefined) return Result.NONE;
    const p = this.policies[op.policy]!;
    const clock = this.clock!;
    op.state = State.IN_FLIGHT;
    op.due = false;
    op.attempt = op.attempt === 0x7fffffff ? 1 : op.attempt + 1;
    const b = this.breakers[op.policy];
    if (b.state === Breaker.HALF_OPEN) {
      op.probe = true;
      b.state = Breaker.PROBING;
      this.count(Counter.PROBES);
      for (const other of this.opsOf(op.policy)) if (other.due) [other.held, other.due] = [true, false];
    }
    const timeout = op.hasDeadline
      ? Math.min(p.attemptTimeout, ticksUntil(clock, op.deadline))
      : p.attemptTimeout;
    op.attemptDeadline = tickAfter(clock, timeout);
    this.count(Counter.ATTEMPTS_STARTED);
    if (op.attempt === 1 && !op.session) this.budget.deposit(this.budget.firstAttemptDeposit);
    return this.handleOf(op);
  }

  report(handle: number, attempt: number, outcome: number, retryAfter: number, now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const op = this.find(handle);
    if (op === undefined) return Err.BAD_HANDLE;
    if (outcome < Outcome.SUCCESS || outcome > Outcome.PERMANENT) return Err.BAD_OUTCOME;
    if (!isSpan(retryAfter)) return Err.SPAN_TOO_LARGE;
    this.advance(now);
    if (op.state !== State.IN_FLIGHT || attempt !== op.attempt) {
      this.count(Counter.STALE_REPORTS);
      return Err.STALE_REPORT;
    }
    if (outcome === Outcome.SUCCESS) {
      op.lastOutcome = Outcome.SUCCESS;
      this.attemptEnded(op, Outcome.SUCCESS);
      if (op.session) this.connect(op);
      else {
        this.budget.onSuccess(op.attempt > 1 ? op.lastRetryCost : undefined);
        this.end(op, EndReason.SUCCEEDED);
      }
    } else {
      this.fail(op, outcome, outcome === Outcome.PERMANENT ? 0 : retryAfter, false);
    }
    return Result.OK;
  }

  /** Sessions: the connect attempt succeeded. */
  private connect(op: Op): void {
    op.state = State.UP;
    op.nextAttemptAt = this.clock!;
    if (this.policies[op.policy]!.stableAfter === 0) op.level = 0;
    if (op.dropped) this.count(Counter.RECONNECTS);
    this.changed = true;
  }

  cancel(handle: number, now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const op = this.find(handle);
    if (op === undefined) return Err.BAD_HANDLE;
    this.advance(now);
    if (!isLive(op)) return Err.NOT_LIVE;
    const probe = op.probe;
    this.end(op, EndReason.CANCELLED);
    if (probe) this.halfOpen(op.policy);
    return Result.OK;
  }

  drop(handle: number, now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const op = this.find(handle);
    if (op === undefined) return Err.BAD_HANDLE;
    this.advance(now);
    if (op.state !== State.UP) return Err.NOT_UP;
    this.drop_(op);
    return Result.OK;
  }

  linkUp(now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    this.advance(now);
    this.breakers.forEach((b, id) => {
      if (b.state !== Breaker.OPEN) return;
      this.halfOpen(id);
      this.changed = true;
    });
    for (const op of this.ops) {
      if (op.state !== State.WAITING || op.due || op.held) continue;
      const p = this.policies[op.policy]!;
      if (!op.session && (p.flags & PolicyFlag.KICK) === 0) continue;
      const d = this.spreadDraw(op.policy);
      if (ticksUntil(tickAfter(this.clock!, d), op.nextAttemptAt) > 0) {
        this.startAt(op, d);
        this.count(Counter.KICKS);
      }
    }
    return Result.OK;
  }

  release(handle: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const op = this.find(handle);
    if (op === undefined) return Err.BAD_HANDLE;
    if (isLive(op)) return Err.STILL_LIVE;
    this.ops[this.ops.indexOf(op)] = freeOp(op.generation);
    this.changed = true;
    return Result.OK;
  }

  ended(now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    this.advance(now);
    const op = this.ops.find((o) => o.state === State.DONE && !o.handedOut);
    if (op === undefined) return Result.NONE;
    op.handedOut = true;
    this.changed = true;
    return this.handleOf(op);
  }

  slot(handle: number): number {
    const op = this.find(handle);
    return op === undefined ? Err.BAD_HANDLE : this.ops.indexOf(op);
  }

  nextDue(now: number): number {
    if (!this.initialized) return NextDue.IDLE;
    this.advance(now);
    if (this.ops.some((op) => op.state === State.WAITING && op.due)) return 0;
    let best = Infinity;
    const consider = (t: number) => (best = Math.min(best, ticksUntil(this.clock!, t)));
    for (const op of this.ops) {
      if (op.state === State.WAITING) {
        if (!op.held) consider(op.nextAttemptAt);
        if (op.hasDeadline) consider(op.deadline);
      } else if (op.state === State.IN_FLIGHT) {
        consider(op.attemptDeadline);
      } else if (op.state === State.UP && op.level > 0) {
        consider(tickAfter(op.nextAttemptAt, this.policies[op.policy]!.stableAfter));
      }
    }
    for (const b of this.breakers) if (b.state === Breaker.OPEN) consider(b.breakEnds);
    return best === Infinity ? NextDue.IDLE : u32(best);
  }

  // ---- queries ------------------------------------------------------------------------

  state(handle: number): number {
    return this.find(handle)?.state ?? Err.BAD_HANDLE;
  }
  attempt(handle: number): number {
    return this.find(handle)?.attempt ?? Err.BAD_HANDLE;
  }
  endReason(handle: number): number {
    return this.find(handle)?.endReason ?? Err.BAD_HANDLE;
  }
  lastOutcome(handle: number): number {
    return this.find(handle)?.lastOutcome ?? Err.BAD_HANDLE;
  }
  operationId(handle: number): number {
    return this.find(handle)?.id ?? Err.BAD_HANDLE;
  }
  opFlags(handle: number): number {
    const op = this.find(handle);
    if (op === undefined) return Err.BAD_HANDLE;
    return opFlagsOf(op);
  }
  nextAttemptAt(handle: number): number {
    return this.find(handle)?.nextAttemptAt ?? 0;
  }
  attemptDeadline(handle: number): number {
    return this.find(handle)?.attemptDeadline ?? 0;
  }
  deadline(handle: number): number {
    return this.find(handle)?.deadline ?? 0;
  }
  backoffLevel(handle: number): number {
    return this.find(handle)?.level ?? Err.BAD_HANDLE;
  }

  /** field(handle, which): the slot's words in image order (docs/ABI.md, field); read as i32. */
  field(handle: number, which: number): number {
    const op = this.find(handle);
    if (op === undefined) return Err.BAD_HANDLE;
    if (u32(which) >= Field.COUNT) return Err.BAD_FIELD;
    const words = [
      op.generation,
      op.state,
      op.policy,
      op.attempt,
      op.lastOutcome,
      op.endReason,
      opFlagsOf(op),
      op.id,
      op.nextAttemptAt,
      op.attemptDeadline,
      op.deadline,
      op.prev,
      op.lastRetryCost,
      op.level,
    ];
    return words[which] | 0;
  }

  holdBreaker(policy: number, now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    if (u32(policy) >= Limit.POLICIES || this.policies[policy] === undefined) return Err.BAD_POLICY;
    this.advance(now);
    const b = this.breakers[policy];
    b.state = Breaker.ISOLATED;
    b.failures = 0;
    this.changed = true;
    for (const op of this.ops) if (op.policy === policy) op.probe = false;
    for (const op of this.opsOf(policy)) if (op.due) [op.held, op.due] = [true, false];
    return Result.OK;
  }

  releaseBreaker(policy: number, now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    if (u32(policy) >= Limit.POLICIES || this.policies[policy] === undefined) return Err.BAD_POLICY;
    if (this.breakers[policy].state !== Breaker.ISOLATED) return Err.NOT_ISOLATED;
    this.advance(now);
    this.halfOpen(policy);
    this.changed = true;
    return Result.OK;
  }

  breakerState(policy: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const p = u32(policy) < Limit.POLICIES ? this.policies[policy] : undefined;
    return p === undefined ? Err.BAD_POLICY : this.breakers[policy].state;
  }
  breakEnds(policy: number): number {
    const p = this.initialized && u32(policy) < Limit.POLICIES ? this.policies[policy] : undefined;
    const b = this.breakers[policy];
    return p === undefined || b.state !== Breaker.OPEN ? 0 : b.breakEnds;
  }

  worstCase(policy: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const p = u32(policy) < Limit.POLICIES ? this.policies[policy] : undefined;
    return p === undefined ? Err.BAD_POLICY : worstCase(p);
  }

  counter(id: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    if (u32(id) >= Counter.COUNT) return Err.BAD_COUNTER;
    return this.counters[id] & 0x7fffffff;
  }

  tokens(): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    return this.budget.tokens;
  }

  abiVersion(): number {
    return ABI_VERSION;
  }

  // ---- saving and restoring ("Saving and restoring" in docs/ABI.md) -----------------

  imageAddress(): number {
    return IMAGE_ADDRESS;
  }

  /**
   * The model keeps its state in objects, not in one block of memory: it answers an empty
   * block, and harnesses check the module's answers against docs/ABI.md (State block).
   */
  stateAddress(): number {
    return 0;
  }

  stateBytes(): number {
    return 0;
  }

  changes(): number {
    if (this.changed) this.changeCount = u32(this.changeCount + 1);
    this.changed = false;
    return this.changeCount;
  }

  save(now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    this.advance(now);
    const image = encodeImage(this.saved(u32(now)));
    new Uint8Array(this.memory.buffer, IMAGE_ADDRESS, image.length).set(image);
    return image.length;
  }

  restore(length: number, now: number, elapsed: number, flags: number): number {
    if ((u32(flags) & ~RestoreFlag.ATTEMPTS_LOST) !== 0) return Err.BAD_FIELD;
    if (!isSpan(elapsed)) return Err.SPAN_TOO_LARGE;
    const saved = decodeImage(
      new Uint8Array(this.memory.buffer, IMAGE_ADDRESS, Image.AREA_BYTES),
      u32(length),
    );
    if (typeof saved === "number") return saved;
    this.load(saved, u32(now - elapsed));
    const lost = (flags & RestoreFlag.ATTEMPTS_LOST) !== 0;
    // One visit per slot at the saved clock: lost attempts fail, connections drop, reached
    // waits apply.
    if (lost) {
      this.visitBreakers(false);
      for (const op of this.ops) this.visit(op, false, true);
    }
    this.advance(now);
    if (lost) {
      for (const op of this.ops) {
        if (op.state === State.WAITING && op.due && this.policies[op.policy]!.spread !== 0) {
          this.startAt(op, this.spreadDraw(op.policy));
        }
      }
    }
    return Result.OK;
  }

  /** The body of the image save(now) writes: every tick relative to now. */
  private saved(now: number): Saved {
    const rel = (t: number) => u32(t - now);
    const b = this.budget;
    return {
      clockAhead: rel(this.clock!),
      nextOperationId: this.nextId,
      prng: this.prng.state,
      budget: BUDGET_KEYS.map((k) => b[k]),
      counters: [...this.counters],
      policies: this.policies.map((p, id) =>
        p === undefined ? undefined : savedPolicy(p, this.breakers[id], rel),
      ),
      slots: this.ops.map((op) => savedSlot(op, rel)),
    };
  }

  /** Replaces the whole state with an accepted image, its ticks rebased to `base`. */
  private load(s: Saved, base: number): void {
    const at = (x: number) => tickAfter(base, x);
    this.wipe();
    this.initialized = true;
    this.changed = true;
    this.clock = at(s.clockAhead);
    this.nextId = s.nextOperationId;
    this.prng.state = s.prng;
    BUDGET_KEYS.forEach((k, i) => (this.budget[k] = s.budget[i]));
    this.counters = [...s.counters];
    this.policies = s.policies.map((p, id) => {
      if (p === undefined) return undefined;
      const [state, failures, opens, ends] = p.slice(POLICY_KEYS.length);
      this.breakers[id] = { state, failures, opens, breakEnds: at(ends) };
      return Object.fromEntries(POLICY_KEYS.map((k, i) => [k, p[i]])) as unknown as Policy;
    });
    this.ops = s.slots.map((slot) => loadedOp(slot, at));
  }
}

// The image's record layouts, in docs/ABI.md's order: the budget's fields, then a policy's
// fields (its breaker follows), as the save writes them and the restore reads them back.
const BUDGET_KEYS = [
  "capacity",
  "tokens",
  "retryCost",
  "timeoutRetryCost",
  "threshold",
  "failureCost",
  "firstAttemptDeposit",
  "successDeposit",
  "flags",
] as const;
const POLICY_KEYS = [
  "maxAttempts",
  "flags",
  "attemptTimeout",
  "baseDelay",
  "maxDelay",
  "throttleBaseDelay",
  "deadline",
  "stableAfter",
  "spread",
  "breakAfter",
  "breakBase",
  "breakCap",
  "maxRetryAfter",
] as const;

/** A policy's record in the image: its fields, then its breaker (a break's end relative). */
function savedPolicy(p: Policy, b: BreakerState, rel: (t: number) => number): number[] {
  const breakEnds = b.state === Breaker.OPEN ? rel(b.breakEnds) : 0;
  return [...POLICY_KEYS.map((k) => p[k]), b.state, b.failures, b.opens, breakEnds];
}

/** An operation's record in the image; undefined for a slot never used. */
function savedSlot(op: Op, rel: (t: number) => number): SavedSlot | undefined {
  if (op.generation === 0) return undefined;
  return {
    generation: op.generation,
    state: op.state,
    policy: op.policy,
    attempt: op.attempt,
    lastOutcome: op.lastOutcome,
    endReason: op.endReason,
    opFlags: opFlagsOf(op),
    operationId: op.id,
    nextAttemptAt: rel(op.nextAttemptAt),
    attemptDeadline: rel(op.attemptDeadline),
    deadline: rel(op.deadline),
    previousWait: op.prev,
    lastRetryCost: op.lastRetryCost,
    level: op.level,
  };
}

/** The operation an image's slot record stands for, its ticks rebased by `at`. */
function loadedOp(slot: SavedSlot | undefined, at: (x: number) => number): Op {
  if (slot === undefined) return freeOp(0);
  const op = freeOp(slot.generation);
  if (slot.state === State.FREE) return op;
  const flag = (bit: number) => (slot.opFlags & bit) !== 0;
  return Object.assign(op, {
    state: slot.state,
    policy: slot.policy,
    attempt: slot.attempt,
    endReason: slot.endReason,
    lastOutcome: slot.lastOutcome,
    nextAttemptAt: at(slot.nextAttemptAt),
    attemptDeadline: at(slot.attemptDeadline),
    deadline: at(slot.deadline),
    hasDeadline: flag(OpFlag.HAS_DEADLINE),
    due: flag(OpFlag.DUE),
    handedOut: flag(OpFlag.HANDED_OUT),
    session: flag(OpFlag.SESSION),
    probe: flag(OpFlag.PROBE),
    dropped: flag(OpFlag.DROPPED),
    held: flag(OpFlag.HELD),
    id: slot.operationId,
    prev: slot.previousWait,
    lastRetryCost: slot.lastRetryCost,
    level: slot.level,
  });
}
