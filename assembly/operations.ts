// The operation calls of the ABI (docs/ABI.md, Operations, Sessions, Link-up kick): each
// checks its arguments, advances the clock (scan.ts) and then does its own work through
// the state machine (machine.ts), the retry rules (retry.ts) and the breaker (breaker.ts).
import {
  COUNTER_ATTEMPTS_STARTED,
  COUNTER_BEGUN,
  COUNTER_KICKS,
  COUNTER_RECONNECTS,
  COUNTER_STALE_REPORTS,
  END_REASON_CANCELLED,
  END_REASON_SUCCEEDED,
  ERROR_BAD_HANDLE,
  ERROR_BAD_OUTCOME,
  ERROR_BAD_POLICY,
  ERROR_NOT_INITIALIZED,
  ERROR_NOT_LIVE,
  ERROR_NOT_UP,
  ERROR_SPAN_TOO_LARGE,
  ERROR_STALE_REPORT,
  ERROR_STILL_LIVE,
  ERROR_TABLE_FULL,
  EVENT_BEGIN,
  EVENT_CONNECT,
  EVENT_RELEASE,
  EVENT_START,
  LIMIT_OPERATIONS,
  NEXT_DUE_IDLE,
  OP_FLAG_DROPPED,
  OP_FLAG_DUE,
  OP_FLAG_HANDED_OUT,
  OP_FLAG_HAS_DEADLINE,
  OP_FLAG_HELD,
  OP_FLAG_SESSION,
  OUTCOME_PERMANENT,
  OUTCOME_SUCCESS,
  POLICY_FLAG_KICK,
  POLICY_FLAG_SESSION,
  POLICY_FLAG_SPREAD_FIRST,
  RESULT_NONE,
  RESULT_OK,
  STATE_DONE,
  STATE_FREE,
  STATE_IN_FLIGHT,
  STATE_UP,
  STATE_WAITING,
} from "./generated/constants";
import { endBreaks, onAttemptEnd, onAttemptStart, startAt } from "./breaker";
import { onFirstAttempt, onSuccess } from "./budget";
import { touch } from "./changes";
import { count } from "./counters";
import { end, move } from "./machine";
import { policyAt, policyOf } from "./policy-table";
import { nextRandom } from "./random";
import { isInitialized, markInitialized } from "./ready";
import { dropSession, fail } from "./retry";
import { advance } from "./scan";
import { spreadDraw } from "./spread";
import { NEXT_ID_AT, Operation, Policy, STATE, clearWords } from "./state";
import {
  SLOTS,
  SLOTS_END,
  TIMER,
  find,
  firstDue,
  firstSlot,
  handleOf,
  markStale,
  schedule,
  slotAt,
} from "./table";
import { clock, isSpan, tickAfter, ticksUntil, tickWithin } from "./ticks";

const GENERATION_MASK: u32 = 0xffff;
/** The id the next begin takes (a word of the state: the image holds it). */
const NEXT_ID: usize = STATE + NEXT_ID_AT;

/** After restore put a whole state in place: the module counts as initialised. */
export function restoreMachine(): void {
  markInitialized();
  markStale();
}

/** Forgets every operation and reseeds the operation ids (init). */
export function resetMachine(): void {
  store<u32>(NEXT_ID, nextRandom() & 0x7fffffff);
  restoreMachine();
}

/** Begins an operation under a policy; its first attempt is due at once (or within the spread). */
export function begin(policy: u32, now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const found = policyAt(policy);
  if (found == null) return ERROR_BAD_POLICY;
  const p = changetype<Policy>(found);
  const slot = firstSlot(STATE_FREE, 0);
  if (slot == LIMIT_OPERATIONS) return ERROR_TABLE_FULL;
  advance(now);
  const op = slotAt(slot);
  const t = clock.now;
  // Every field after the generation starts at 0 (FREE, attempt and level 0, outcome and
  // end reason NONE, no delay or cost drawn) unless set below.
  clearWords(changetype<usize>(op) + 4, offsetof<Operation>() - 4);
  move(op, EVENT_BEGIN);
  op.generation = (<u32>op.generation % GENERATION_MASK) + 1;
  op.policy = policy;
  // POLICY_FLAG_SESSION is OP_FLAG_SESSION's bit (scripts/gen/abi.ts checks).
  op.flags = (p.deadline != 0 ? OP_FLAG_HAS_DEADLINE : 0) | (p.flags & POLICY_FLAG_SESSION);
  op.attemptDeadline = t;
  op.deadline = tickAfter(t, p.deadline);
  startAt(op, p.flags & POLICY_FLAG_SPREAD_FIRST ? spreadDraw(p) : 0);
  const id = load<u32>(NEXT_ID);
  op.id = id;
  store<u32>(NEXT_ID, (id + 1) & 0x7fffffff);
  count(COUNTER_BEGUN);
  return handleOf(slot, op);
}

/** Applies what is due by now; returns the handle whose attempt starts now, or NONE. */
export function poll(now: u32): i32 {
  // The idle poll: a step forward that stays before the summary's next timer (which is the
  // clock itself before init, when the summary is stale or something is DUE) changes
  // nothing but the clock.
  if (tickWithin(now, clock.now, schedule.nextTimer)) {
    clock.now = now;
    return RESULT_NONE;
  }
  return startDue(now);
}

// poll past its idle step. shrink.ts keeps it out of poll: wasm3 copies a function's
// constants into its frame at every call, so the idle poll pays only for its own few.
function startDue(now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  advance(now);
  const slot = firstDue();
  if (slot == LIMIT_OPERATIONS) return RESULT_NONE;
  const op = slotAt(slot);
  const p = policyOf(op);
  const t = clock.now;
  move(op, EVENT_START);
  op.flags &= ~OP_FLAG_DUE;
  // After 2^31 - 1 attempts (only without an attempt limit) the count starts again at 1.
  op.attempt = (op.attempt % 0x7fffffff) + 1;
  onAttemptStart(op.policy, p, op);
  const timeout = p.attemptTimeout;
  // A live deadline lies ahead (the advance above ended the operation otherwise).
  const clipped = min(timeout, <u32>ticksUntil(t, op.deadline));
  op.attemptDeadline = tickAfter(t, op.flags & OP_FLAG_HAS_DEADLINE ? clipped : timeout);
  count(COUNTER_ATTEMPTS_STARTED);
  if ((op.attempt == 1) & !(op.flags & OP_FLAG_SESSION)) onFirstAttempt();
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
  if ((op.state != STATE_IN_FLIGHT) | (attempt != op.attempt)) {
    count(COUNTER_STALE_REPORTS);
    return ERROR_STALE_REPORT;
  }
  if (outcome == OUTCOME_SUCCESS) succeed(op);
  else fail(op, <i32>outcome, retryAfter, false);
  return RESULT_OK;
}

// The attempt in flight succeeded: a request ends, a session is UP.
function succeed(op: Operation): void {
  onAttemptEnd(op, OUTCOME_SUCCESS);
  if (!(op.flags & OP_FLAG_SESSION)) {
    onSuccess(op.attempt > 1, op.lastRetryCost);
    end(op, END_REASON_SUCCEEDED);
    return;
  }
  move(op, EVENT_CONNECT);
  op.nextAttemptAt = clock.now;
  if (policyOf(op).stableAfter == 0) op.level = 0;
  if (op.flags & OP_FLAG_DROPPED) count(COUNTER_RECONNECTS);
}

/** Ends a live operation CANCELLED. */
export function cancel(handle: i32, now: u32): i32 {
  return cancelOrDrop(handle, now, false);
}

/** An UP session's connection went down: it goes back to retrying. */
export function drop(handle: i32, now: u32): i32 {
  return cancelOrDrop(handle, now, true);
}

// cancel and drop check the handle and apply what is due by `now` alike.
function cancelOrDrop(handle: i32, now: u32, isDrop: bool): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const found = find(handle);
  if (found == null) return ERROR_BAD_HANDLE;
  const op = changetype<Operation>(found);
  advance(now);
  if (!isDrop) return end(op, END_REASON_CANCELLED) ? RESULT_OK : ERROR_NOT_LIVE;
  if (op.state != STATE_UP) return ERROR_NOT_UP;
  dropSession(op);
  return RESULT_OK;
}

/** The link is back: OPEN breakers end their break, waiting sessions and KICK requests fall due within their spread. */
export function linkUp(now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  advance(now);
  if (endBreaks(true)) touch();
  for (let at = SLOTS; at < SLOTS_END; at += offsetof<Operation>()) {
    const op = changetype<Operation>(at);
    if ((op.state != STATE_WAITING) | ((op.flags & (OP_FLAG_DUE | OP_FLAG_HELD)) != 0)) continue;
    const p = policyOf(op);
    if (!((op.flags & OP_FLAG_SESSION) | (p.flags & POLICY_FLAG_KICK))) continue;
    const wait = spreadDraw(p);
    if (ticksUntil(tickAfter(clock.now, wait), op.nextAttemptAt) > 0) {
      startAt(op, wait);
      count(COUNTER_KICKS);
    }
  }
  return RESULT_OK;
}

/** restore with ATTEMPTS_LOST: what the restore made due starts within its policy's spread. */
export function spreadDue(): void {
  for (let at = SLOTS; at < SLOTS_END; at += offsetof<Operation>()) {
    const op = changetype<Operation>(at);
    if (!(op.flags & OP_FLAG_DUE)) continue; // DUE marks WAITING operations only
    const p = policyOf(op);
    if (p.spread != 0) startAt(op, spreadDraw(p));
  }
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
  const slot = firstSlot(STATE_DONE, OP_FLAG_HANDED_OUT);
  if (slot == LIMIT_OPERATIONS) return RESULT_NONE;
  const op = slotAt(slot);
  op.flags |= OP_FLAG_HANDED_OUT;
  touch();
  return handleOf(slot, op);
}

/** Ticks until poll has work (0: now), or IDLE when no timer is pending. */
export function nextDue(now: u32): u32 {
  if (!isInitialized()) return NEXT_DUE_IDLE;
  advance(now);
  // After the advance the summary holds: nextTimer is the clock when something is DUE,
  // else the earliest timer, which lies ahead of the clock.
  const wait = <u32>ticksUntil(clock.now, schedule.nextTimer);
  if ((wait != 0) & !(schedule.summary & TIMER)) return NEXT_DUE_IDLE;
  return wait;
}
