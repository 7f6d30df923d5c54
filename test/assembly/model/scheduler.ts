// The reference model of host/library/build/tickretry.wasm, written from docs/ABI.md alone (never from
// assembly/): the same exports, the same arguments (any 32-bit values), the same results.
// Model-based tests run it beside the module and compare after every call.
import {
  ABI_VERSION,
  BudgetFlag,
  Counter,
  EndReason,
  Error as Err,
  Image,
  Limit,
  NextDue,
  OpFlag,
  Outcome,
  PolicyFlag,
  RestoreFlag,
  Result,
  State,
} from "../../../host/library/src/generated/abi.js";
import { tickAfter, tickReached, ticksUntil } from "../../../host/library/src/ticks.js";
import { drawWait, worstCase, type Policy } from "./backoff.js";
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
}

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
});

const u32 = (x: number) => x >>> 0;
const isSpan = (x: number) => u32(x) <= Limit.MAX_SPAN;
const isLive = (op: Op) => op.state === State.WAITING || op.state === State.IN_FLIGHT;
const opFlagsOf = (op: Op) =>
  (op.due ? OpFlag.DUE : 0) |
  (op.hasDeadline ? OpFlag.HAS_DEADLINE : 0) |
  (op.handedOut ? OpFlag.HANDED_OUT : 0);
/** Counter of the end reason `reason` (ENDED_SUCCEEDED is reason SUCCEEDED's). */
const endedCounter = (reason: number) => Counter.ENDED_SUCCEEDED + reason - EndReason.SUCCEEDED;

/**
 * Where the model's image area starts. docs/ABI.md leaves the offset to the module (any
 * fixed one with the area inside MEMORY_LIMIT), so harnesses read each target's own.
 */
const IMAGE_ADDRESS = 2048;

export class SchedulerModel {
  private initialized = false;
  /** The module's own notion of now; undefined until the first advance after init. */
  clock: number | undefined;
  private prng = new Prng();
  private nextId = 0;
  private policies: (Policy | undefined)[] = [];
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
      fault = this.ops.some(isLive);
      if (fault) this.count(Counter.CLOCK_FAULTS);
    }
    for (const op of this.ops) this.visit(op, fault);
  }

  private expired(t: number): boolean {
    return tickReached(this.clock!, t);
  }

  private visit(op: Op, fault: boolean): void {
    if (op.state === State.WAITING) {
      if (op.hasDeadline && (fault || this.expired(op.deadline))) this.end(op, EndReason.DEADLINE);
      else if (!op.due && (fault || this.expired(op.nextAttemptAt))) op.due = true;
    } else if (op.state === State.IN_FLIGHT && (fault || this.expired(op.attemptDeadline))) {
      this.count(Counter.ATTEMPT_TIMEOUTS);
      this.fail(op, Outcome.TIMEOUT, 0, fault);
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
    op.due = false;
    this.count(endedCounter(reason));
  }

  /** "Failure" in docs/ABI.md: a reported failure or a timeout, at the current clock. */
  private fail(op: Op, outcome: number, retryAfter: number, fault: boolean): void {
    op.lastOutcome = outcome;
    if (outcome === Outcome.PERMANENT) return this.end(op, EndReason.PERMANENT);
    this.budget.onFailure();
    const p = this.policies[op.policy]!;
    const mayHaveRun = outcome === Outcome.AMBIGUOUS || outcome === Outcome.TIMEOUT;
    if (mayHaveRun && (p.flags & PolicyFlag.IDEMPOTENT) === 0) return this.end(op, EndReason.AMBIGUOUS);
    if (op.attempt >= p.maxAttempts) return this.end(op, EndReason.EXHAUSTED);
    const drawn = drawWait(p, outcome, op.attempt, op.prev, this.prng);
    op.prev = drawn;
    const wait = Math.max(drawn, retryAfter);
    if (op.hasDeadline && (fault || wait >= ticksUntil(this.clock!, op.deadline))) {
      return this.end(op, EndReason.DEADLINE);
    }
    const cost = outcome === Outcome.TIMEOUT ? this.budget.timeoutRetryCost : this.budget.retryCost;
    if (!this.budget.allowRetry(cost)) {
      this.count(Counter.RETRIES_DENIED);
      return this.end(op, EndReason.BUDGET);
    }
    op.lastRetryCost = cost;
    op.state = State.WAITING;
    op.nextAttemptAt = tickAfter(this.clock!, wait);
    op.due = wait === 0;
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
  ): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    if (u32(id) >= Limit.POLICIES) return Err.BAD_POLICY;
    const spans = [attemptTimeout, baseDelay, maxDelay, throttleBaseDelay, deadline];
    if (!spans.every(isSpan)) return Err.SPAN_TOO_LARGE;
    if (u32(maxAttempts) < 1 || u32(maxAttempts) > Limit.MAX_ATTEMPTS) return Err.BAD_FIELD;
    if (attemptTimeout === 0 || baseDelay > maxDelay) return Err.BAD_FIELD;
    if ((u32(flags) & ~(PolicyFlag.JITTER_MASK | PolicyFlag.IDEMPOTENT)) !== 0) return Err.BAD_FIELD;
    this.changed = true;
    this.policies[id] = {
      maxAttempts,
      attemptTimeout,
      baseDelay,
      maxDelay,
      throttleBaseDelay,
      deadline,
      flags,
    };
    return Result.OK;
  }

  setBudget(
    capacity: number,
    initial: number,
    retryCost: number,
    timeoutRetryCost: number,
    threshold: number,
    failureCost: number,
    firstAttemptDeposit: number,
    successDeposit: number,
    flags: number,
  ): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const fields = [
      capacity,
      initial,
      retryCost,
      timeoutRetryCost,
      threshold,
      failureCost,
      firstAttemptDeposit,
      successDeposit,
      flags,
    ];
    if (!fields.every(isSpan) || initial > capacity || threshold > capacity) return Err.BAD_FIELD;
    if ((flags & ~BudgetFlag.REFUND_ON_SUCCESS) !== 0) return Err.BAD_FIELD;
    this.changed = true;
    Object.assign(this.budget, {
      capacity,
      tokens: initial,
      retryCost,
      timeoutRetryCost,
      threshold,
      failureCost,
      firstAttemptDeposit,
      successDeposit,
      flags,
    });
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
      nextAttemptAt: clock,
      attemptDeadline: clock,
      deadline: tickAfter(clock, p.deadline),
      hasDeadline: p.deadline !== 0,
      due: true,
      id: this.nextId,
    });
    this.ops[slot] = op;
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
    op.attempt++;
    const timeout = op.hasDeadline
      ? Math.min(p.attemptTimeout, ticksUntil(clock, op.deadline))
      : p.attemptTimeout;
    op.attemptDeadline = tickAfter(clock, timeout);
    this.count(Counter.ATTEMPTS_STARTED);
    if (op.attempt === 1) this.budget.deposit(this.budget.firstAttemptDeposit);
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
      this.budget.onSuccess(op.attempt > 1 ? op.lastRetryCost : undefined);
      this.end(op, EndReason.SUCCEEDED);
    } else {
      this.fail(op, outcome, outcome === Outcome.PERMANENT ? 0 : retryAfter, false);
    }
    return Result.OK;
  }

  cancel(handle: number, now: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const op = this.find(handle);
    if (op === undefined) return Err.BAD_HANDLE;
    this.advance(now);
    if (!isLive(op)) return Err.NOT_LIVE;
    this.end(op, EndReason.CANCELLED);
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
        consider(op.nextAttemptAt);
        if (op.hasDeadline) consider(op.deadline);
      } else if (op.state === State.IN_FLIGHT) {
        consider(op.attemptDeadline);
      }
    }
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

  worstCase(policy: number): number {
    if (!this.initialized) return Err.NOT_INITIALIZED;
    const p = u32(policy) < Limit.POLICIES ? this.policies[policy] : undefined;
    return p === undefined ? Err.BAD_POLICY : worstCase(p);
  }

  classifyHttp(status: number, hasRetryAfter: number): number {
    if (status < 100 || status > 599) return Err.BAD_STATUS;
    if (status >= 200 && status <= 299) return Outcome.SUCCESS;
    if (status === 408 || status === 425) return Outcome.TRANSIENT;
    if (status === 429) return Outcome.THROTTLED;
    if (status === 503) return hasRetryAfter !== 0 ? Outcome.THROTTLED : Outcome.TRANSIENT;
    if (status === 501 || status === 505) return Outcome.PERMANENT;
    if (status >= 500) return Outcome.AMBIGUOUS;
    return Outcome.PERMANENT;
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
    if ((flags & RestoreFlag.ATTEMPTS_LOST) !== 0) {
      // One visit per slot at the saved clock: lost attempts fail, reached waits apply.
      for (const op of this.ops) {
        if (op.state === State.IN_FLIGHT) this.fail(op, Outcome.AMBIGUOUS, 0, false);
        else this.visit(op, false);
      }
    }
    this.advance(now);
    return Result.OK;
  }

  /** The body of the image save(now) writes: every tick relative to now. */
  private saved(now: number): Saved {
    const rel = (t: number) => u32(t - now);
    const b = this.budget;
    const policyFields = (p: Policy) => [
      p.maxAttempts,
      p.flags,
      p.attemptTimeout,
      p.baseDelay,
      p.maxDelay,
      p.throttleBaseDelay,
      p.deadline,
    ];
    const slot = (op: Op): SavedSlot | undefined =>
      op.generation === 0
        ? undefined
        : {
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
          };
    return {
      clockAhead: rel(this.clock!),
      nextOperationId: this.nextId,
      prng: this.prng.state,
      budget: [
        b.capacity,
        b.tokens,
        b.retryCost,
        b.timeoutRetryCost,
        b.threshold,
        b.failureCost,
        b.firstAttemptDeposit,
        b.successDeposit,
        b.flags,
      ],
      counters: [...this.counters],
      policies: this.policies.map((p) => (p === undefined ? undefined : policyFields(p))),
      slots: this.ops.map(slot),
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
    const [capacity, tokens, retryCost, timeoutRetryCost, threshold, failureCost] = s.budget;
    const [firstAttemptDeposit, successDeposit, flags] = s.budget.slice(6);
    Object.assign(this.budget, {
      capacity,
      tokens,
      retryCost,
      timeoutRetryCost,
      threshold,
      failureCost,
      firstAttemptDeposit,
      successDeposit,
      flags,
    });
    this.counters = [...s.counters];
    this.policies = s.policies.map((p) => {
      if (p === undefined) return undefined;
      const [maxAttempts, flags, attemptTimeout, baseDelay, maxDelay, throttleBaseDelay, deadline] = p;
      return { maxAttempts, attemptTimeout, baseDelay, maxDelay, throttleBaseDelay, deadline, flags };
    });
    this.ops = s.slots.map((slot) => {
      if (slot === undefined) return freeOp(0);
      const op = freeOp(slot.generation);
      if (slot.state === State.FREE) return op;
      return Object.assign(op, {
        state: slot.state,
        policy: slot.policy,
        attempt: slot.attempt,
        endReason: slot.endReason,
        lastOutcome: slot.lastOutcome,
        nextAttemptAt: at(slot.nextAttemptAt),
        attemptDeadline: at(slot.attemptDeadline),
        deadline: at(slot.deadline),
        hasDeadline: (slot.opFlags & OpFlag.HAS_DEADLINE) !== 0,
        due: (slot.opFlags & OpFlag.DUE) !== 0,
        handedOut: (slot.opFlags & OpFlag.HANDED_OUT) !== 0,
        id: slot.operationId,
        prev: slot.previousWait,
        lastRetryCost: slot.lastRetryCost,
      });
    });
  }
}
