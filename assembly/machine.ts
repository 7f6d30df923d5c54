// The retry state machine. This file owns every state transition: move() is the only
// writer of Operation.state (besides restore, which puts a saved table back whole), and
// it obeys TRANSITION_TABLE, generated from the "transitions" of assembly/constants.json
// (docs/ABI.md draws the state diagram from it).
//
// Theory of operation. The module is sans-IO: the host passes `now` into every call
// that needs time. Each such call first brings the clock to now and applies what has
// expired (attempt timeouts, deadlines, retries falling due), then does its own work.
// A refused call (negative code) is refused before anything changes, except for the
// codes that depend on state (STALE_REPORT, NOT_LIVE), which are decided after the
// clock has moved: time passing is never undone. Operations live in a fixed table of
// LIMIT_OPERATIONS slots in static memory; a handle is (generation << SLOT_BITS) | slot,
// so a released or reused slot refuses its old handles.
import {
  COUNTER_ATTEMPTS_STARTED,
  COUNTER_ATTEMPT_TIMEOUTS,
  COUNTER_BEGUN,
  COUNTER_CLOCK_FAULTS,
  COUNTER_ENDED_SUCCEEDED,
  COUNTER_RETRIES_DENIED,
  COUNTER_RETRIES_SCHEDULED,
  COUNTER_STALE_REPORTS,
  END_REASON_AMBIGUOUS,
  END_REASON_BUDGET,
  END_REASON_CANCELLED,
  END_REASON_DEADLINE,
  END_REASON_EXHAUSTED,
  END_REASON_NONE,
  END_REASON_PERMANENT,
  END_REASON_SUCCEEDED,
  ERROR_BAD_HANDLE,
  ERROR_BAD_OUTCOME,
  ERROR_BAD_POLICY,
  ERROR_NOT_INITIALIZED,
  ERROR_NOT_LIVE,
  ERROR_SPAN_TOO_LARGE,
  ERROR_STALE_REPORT,
  ERROR_STILL_LIVE,
  ERROR_TABLE_FULL,
  EVENT_BEGIN,
  EVENT_END,
  EVENT_RELEASE,
  EVENT_RETRY,
  EVENT_START,
  LIMIT_MAX_SPAN,
  LIMIT_OPERATIONS,
  LIMIT_SLOT_BITS,
  NEXT_DUE_IDLE,
  OP_FLAG_DUE,
  OP_FLAG_HANDED_OUT,
  OP_FLAG_HAS_DEADLINE,
  OUTCOME_AMBIGUOUS,
  OUTCOME_PERMANENT,
  OUTCOME_SUCCESS,
  OUTCOME_THROTTLED,
  OUTCOME_TIMEOUT,
  RESULT_NONE,
  RESULT_OK,
  STATE_DONE,
  STATE_FREE,
  STATE_IN_FLIGHT,
  STATE_WAITING,
  TRANSITION_TABLE,
} from "./generated/constants";
import { jitteredDelay } from "./backoff";
import { touch } from "./changes";
import { onFailure, onFirstAttempt, onSuccess, retryCostOf, withdrawRetry } from "./budget";
import { count } from "./counters";
import { isIdempotent, jitterOf, policyAt } from "./policy";
import { nextRandom } from "./random";
import {
  BLOCK,
  NEXT_ID_AT,
  OPERATIONS_AT,
  Operation,
  Policy,
  SCHEDULE_AT,
  STATE,
  ScheduleWords,
  copyWords,
} from "./state";
import { Clock, clock, isSpan, tickAfter, tickReached, ticksUntil } from "./ticks";

const OPERATIONS: usize = STATE + OPERATIONS_AT;
const SLOT_MASK: i32 = (1 << LIMIT_SLOT_BITS) - 1;
const GENERATION_MASK: u32 = 0xffff;
// schedule.summary's bits.
const LIVE: u32 = 1;
const DUE: u32 = 2;

/** The id the next begin takes (a word of the state: the image holds it). */
const NEXT_ID: usize = STATE + NEXT_ID_AT;

function slotAt(slot: i32): Operation {
  return changetype<Operation>(OPERATIONS + <usize>slot * offsetof<Operation>());
}

function handleOf(slot: i32, op: Operation): i32 {
  return ((<i32>op.generation) << LIMIT_SLOT_BITS) | slot;
}

/** The operation a handle names, or null for a handle never issued or already released. */
export function find(handle: i32): Operation | null {
  // A slot in use has a generation of 1 to 65535: a negative handle, or one of
  // generation 0 or above 65535, matches none.
  const op = slotAt(handle & SLOT_MASK);
  return op.state != STATE_FREE && <u32>op.generation == (<u32>handle) >> LIMIT_SLOT_BITS ? op : null;
}

function move(op: Operation, event: i32): bool {
  const entry = (<u32>(TRANSITION_TABLE >> (<u64>event * 8))) & 0xff;
  if ((entry & 0xf & (1 << op.state)) == 0) return false;
  op.state = entry >> 4;
  schedule.scanned = 0;
  touch();
  return true;
}

function end(op: Operation, reason: i32): bool {
  if (!move(op, EVENT_END)) return false;
  op.endReason = reason;
  clearDue(op);
  count(COUNTER_ENDED_SUCCEEDED + reason - END_REASON_SUCCEEDED);
  return true;
}

function setDue(op: Operation): void {
  op.flags |= OP_FLAG_DUE;
}

function clearDue(op: Operation): void {
  op.flags &= ~OP_FLAG_DUE;
}

/**
 * What is live, what is due and when the next timer fires: a summary of the table, so
 * that an idle poll costs O(1) whatever the table holds (in the state block, with
 * `initialized`: true once init or restore has run). It is stale (`scanned` 0) after every
 * transition (move) and after init and restore, which write the whole table; the next
 * advance then scans the table again. Every other write of an operation's flags or timers
 * follows a transition in the same call (begin, poll, a retry) or happens inside the scan,
 * which summarises each slot after applying its timers; HANDED_OUT (ended) is not
 * summarised. summary holds LIVE when an operation is live, DUE when one is due;
 * nextTimer the earliest timer, with none MAX_SPAN after the clock (a scan then finds
 * nothing).
 */
const schedule = changetype<ScheduleWords>(BLOCK + SCHEDULE_AT);

function noteTimer(t: u32): void {
  if (ticksUntil(schedule.nextTimer, t) < 0) schedule.nextTimer = t;
}

/** True once init has run. */
export function isInitialized(): bool {
  return schedule.initialized != 0;
}

/** After restore put a whole state in place: the module counts as initialised. */
export function restoreMachine(): void {
  schedule.initialized = 1;
  schedule.scanned = 0;
}

/** Forgets every operation and reseeds the operation ids (init). */
export function resetMachine(): void {
  store<u32>(NEXT_ID, nextRandom() & 0x7fffffff);
  restoreMachine();
}

// A failed attempt (reported, or timed out by the module): end the operation, or
// schedule its retry. `fault` says the clock jumped past every old timer.
function fail(op: Operation, outcome: i32, retryAfter: u32, fault: bool): void {
  op.lastOutcome = outcome;
  const reason = retryOrEnd(op, outcome, retryAfter, fault);
  if (reason != END_REASON_NONE) end(op, reason);
}

// Schedules the retry after a failed attempt; or, without a change, the end reason.
function retryOrEnd(op: Operation, outcome: i32, retryAfter: u32, fault: bool): i32 {
  const p = changetype<Policy>(policyAt(op.policy));
  if (outcome == OUTCOME_PERMANENT) return END_REASON_PERMANENT;
  onFailure();
  if ((outcome == OUTCOME_AMBIGUOUS || outcome == OUTCOME_TIMEOUT) && !isIdempotent(p)) {
    return END_REASON_AMBIGUOUS;
  }
  if (<u32>op.attempt >= <u32>p.maxAttempts) return END_REASON_EXHAUSTED;
  const now = clock.now;
  const base = outcome == OUTCOME_THROTTLED ? p.throttleBaseDelay : p.baseDelay;
  const delay = jitteredDelay(jitterOf(p), base, p.maxDelay, op.attempt, op.previousDelay);
  op.previousDelay = delay;
  const wait = max(delay, retryAfter);
  const hasDeadline = (op.flags & OP_FLAG_HAS_DEADLINE) != 0;
  if (hasDeadline && (fault || <i32>wait >= ticksUntil(now, op.deadline))) {
    return END_REASON_DEADLINE;
  }
  const cost = retryCostOf(outcome == OUTCOME_TIMEOUT);
  if (!withdrawRetry(cost)) {
    count(COUNTER_RETRIES_DENIED);
    return END_REASON_BUDGET;
  }
  op.lastRetryCost = cost;
  move(op, EVENT_RETRY);
  op.nextAttemptAt = tickAfter(now, wait);
  if (wait == 0) setDue(op);
  count(COUNTER_RETRIES_SCHEDULED);
  return END_REASON_NONE;
}

/**
 * Brings the clock to now and applies what has expired. The table is scanned only when a
 * timer expired, the clock faulted or a writer marked the summary stale; otherwise (an
 * idle poll) this is a clock step and two checks.
 */
export function advance(now: u32): void {
  // The schedule is read before the clock is written: a compiler that cannot tell the two
  // apart (wasm2c) then loads each word once.
  const scanned = schedule.scanned;
  const timer = schedule.nextTimer;
  const fault = Clock.advance(now);
  if (fault || !scanned || tickReached(clock.now, timer)) scan(fault, false);
}

/** Every attempt in flight fails AMBIGUOUS, in slot order, as if reported now (restore). */
export function loseAttempts(): void {
  scan(false, true);
}

// Applies every timer that has expired (all of them on a clock fault, counted when
// operations were live), in slot order, and summarises the table as it leaves it. With
// `lost`, every attempt in flight fails AMBIGUOUS instead (restore: no timer has expired).
function scan(fault: bool, lost: bool): void {
  let live = false;
  schedule.summary = 0;
  schedule.nextTimer = tickAfter(clock.now, LIMIT_MAX_SPAN);
  for (let slot = 0; slot < LIMIT_OPERATIONS; slot++) {
    const op = slotAt(slot);
    if (op.state == STATE_WAITING) {
      live = true;
      if (op.flags & OP_FLAG_HAS_DEADLINE && Clock.hasExpired(op.deadline, fault)) {
        end(op, END_REASON_DEADLINE);
      } else if (!(op.flags & OP_FLAG_DUE) && Clock.hasExpired(op.nextAttemptAt, fault)) {
        setDue(op);
      }
    } else if (op.state == STATE_IN_FLIGHT) {
      live = true;
      if (lost) {
        fail(op, OUTCOME_AMBIGUOUS, 0, false);
      } else if (Clock.hasExpired(op.attemptDeadline, fault)) {
        count(COUNTER_ATTEMPT_TIMEOUTS);
        fail(op, OUTCOME_TIMEOUT, 0, fault);
      }
    }
    if (op.state == STATE_WAITING) {
      schedule.summary |= LIVE | ((op.flags & OP_FLAG_DUE) * DUE);
      if (!(op.flags & OP_FLAG_DUE)) noteTimer(op.nextAttemptAt);
      if (op.flags & OP_FLAG_HAS_DEADLINE) noteTimer(op.deadline);
    } else if (op.state == STATE_IN_FLIGHT) {
      schedule.summary |= LIVE;
      noteTimer(op.attemptDeadline);
    }
  }
  if (fault && live) count(COUNTER_CLOCK_FAULTS);
  schedule.scanned = 1;
}

/** Begins an operation under a policy; its first attempt is due at once. Returns its handle. */
export function begin(policy: u32, now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const p = policyAt(policy);
  if (p == null) return ERROR_BAD_POLICY;
  let slot = 0;
  while (slot < LIMIT_OPERATIONS && slotAt(slot).state != STATE_FREE) slot++;
  if (slot == LIMIT_OPERATIONS) return ERROR_TABLE_FULL;
  advance(now);
  const op = slotAt(slot);
  const t = clock.now;
  // Every field after the generation starts at 0 (FREE, attempt 0, outcome and end reason
  // NONE, no delay or cost drawn) unless set below (mask 0: STATE is only read).
  copyWords(changetype<usize>(op) + 4, STATE, 0, offsetof<Operation>() - 4);
  move(op, EVENT_BEGIN);
  op.generation = (<u32>op.generation % GENERATION_MASK) + 1;
  op.policy = policy;
  op.flags = OP_FLAG_DUE | (p.deadline != 0 ? OP_FLAG_HAS_DEADLINE : 0);
  op.nextAttemptAt = t;
  op.attemptDeadline = t;
  op.deadline = tickAfter(t, p.deadline);
  const id = load<u32>(NEXT_ID);
  op.id = id;
  store<u32>(NEXT_ID, (id + 1) & 0x7fffffff);
  count(COUNTER_BEGUN);
  return handleOf(slot, op);
}

/** Applies what is due by now; returns the handle whose attempt starts now, or NONE. */
export function poll(now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  advance(now);
  if (!(schedule.summary & DUE)) return RESULT_NONE;
  let slot = 0;
  while (!(slotAt(slot).flags & OP_FLAG_DUE)) slot++;
  const op = slotAt(slot);
  const p = changetype<Policy>(policyAt(op.policy));
  const t = clock.now;
  move(op, EVENT_START);
  clearDue(op);
  op.attempt++;
  let timeout = p.attemptTimeout;
  // A live deadline lies ahead (the advance above ended the operation otherwise).
  if (op.flags & OP_FLAG_HAS_DEADLINE) timeout = min(timeout, <u32>ticksUntil(t, op.deadline));
  op.attemptDeadline = tickAfter(t, timeout);
  count(COUNTER_ATTEMPTS_STARTED);
  if (op.attempt == 1) onFirstAttempt();
  return handleOf(slot, op);
}

/** Reports how attempt number `attempt` of an operation ended. */
export function report(handle: i32, attempt: u32, outcome: u32, retryAfter: u32, now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const found = find(handle);
  if (found == null) return ERROR_BAD_HANDLE;
  if (outcome - OUTCOME_SUCCESS > <u32>(OUTCOME_PERMANENT - OUTCOME_SUCCESS)) return ERROR_BAD_OUTCOME;
  if (!isSpan(retryAfter)) return ERROR_SPAN_TOO_LARGE;
  const op = changetype<Operation>(found);
  advance(now);
  if (op.state != STATE_IN_FLIGHT || attempt != <u32>op.attempt) {
    count(COUNTER_STALE_REPORTS);
    return ERROR_STALE_REPORT;
  }
  if (outcome == OUTCOME_SUCCESS) {
    op.lastOutcome = OUTCOME_SUCCESS;
    onSuccess(op.attempt > 1, op.lastRetryCost);
    end(op, END_REASON_SUCCEEDED);
  } else {
    fail(op, <i32>outcome, retryAfter, false);
  }
  return RESULT_OK;
}

/** Ends a live operation CANCELLED. */
export function cancel(handle: i32, now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const op = find(handle);
  if (op == null) return ERROR_BAD_HANDLE;
  advance(now);
  if (!end(op, END_REASON_CANCELLED)) return ERROR_NOT_LIVE;
  return RESULT_OK;
}

/** Frees the slot of an ended operation; its handle becomes invalid. */
export function release(handle: i32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const op = find(handle);
  if (op == null) return ERROR_BAD_HANDLE;
  return move(op, EVENT_RELEASE) ? RESULT_OK : ERROR_STILL_LIVE;
}

/** Applies what is due by now; returns one ended operation not handed out before, or NONE. */
export function ended(now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  advance(now);
  for (let slot = 0; slot < LIMIT_OPERATIONS; slot++) {
    const op = slotAt(slot);
    if (op.state == STATE_DONE && !(op.flags & OP_FLAG_HANDED_OUT)) {
      op.flags |= OP_FLAG_HANDED_OUT;
      touch();
      return handleOf(slot, op);
    }
  }
  return RESULT_NONE;
}

/** Ticks until poll has work (0: now), or IDLE when nothing is live. */
export function nextDue(now: u32): u32 {
  if (!isInitialized()) return NEXT_DUE_IDLE;
  advance(now);
  if (schedule.summary & DUE) return 0;
  if (!schedule.summary) return NEXT_DUE_IDLE;
  // After the advance every timer lies ahead of the clock.
  return <u32>ticksUntil(clock.now, schedule.nextTimer);
}
