// What a failed attempt or a dropped connection leads to: the next wait, or the end
// (docs/ABI.md, Failure and Sessions). Every wait is drawn at the operation's backoff
// level, which failures and drops raise and only a stable connection resets.
import {
  COUNTER_DROPS,
  COUNTER_RETRIES_DENIED,
  COUNTER_RETRIES_SCHEDULED,
  END_REASON_AMBIGUOUS,
  END_REASON_BUDGET,
  END_REASON_DEADLINE,
  END_REASON_EXHAUSTED,
  END_REASON_NONE,
  END_REASON_PERMANENT,
  EVENT_DROP,
  EVENT_RETRY,
  LIMIT_MAX_ATTEMPTS,
  OP_FLAG_DROPPED,
  OP_FLAG_HAS_DEADLINE,
  OP_FLAG_SESSION,
  OUTCOME_AMBIGUOUS,
  OUTCOME_PERMANENT,
  OUTCOME_THROTTLED,
  OUTCOME_TIMEOUT,
  POLICY_FLAG_SPREAD_DROP,
} from "./generated/constants";
import { jitteredDelay } from "./backoff";
import { onAttemptEnd, startAt } from "./breaker";
import { onFailure, retryCostOf, withdrawRetry } from "./budget";
import { count } from "./counters";
import { end, move } from "./machine";
import { boundRetryAfter, isIdempotent, jitterOf } from "./policy";
import { policyOf } from "./policy-table";
import { spreadDraw } from "./spread";
import { Operation, Policy } from "./state";
import { clock, ticksUntil } from "./ticks";

// The jittered wait at op's level (from the throttle base after THROTTLED); it becomes
// the operation's previous wait.
function drawWait(op: Operation, p: Policy, throttled: bool): u32 {
  // select, not ?:, which binaryen leaves an if/else over two loads (and wasm3 an else page).
  const base = select<u32>(p.throttleBaseDelay, p.baseDelay, throttled);
  const delay = jitteredDelay(jitterOf(p), base, p.maxDelay, op.level, op.previousDelay);
  op.previousDelay = delay;
  return delay;
}

/**
 * A failed attempt (reported, timed out, or lost at a restore): the breaker counts it,
 * then the operation ends or waits for its retry. `fault` says the clock jumped past every
 * old timer.
 */
export function fail(op: Operation, outcome: i32, retryAfter: u32, fault: bool): void {
  const p = policyOf(op);
  onAttemptEnd(op, outcome);
  op.level = min(op.level + 1, LIMIT_MAX_ATTEMPTS);
  const reason = retryOrEnd(op, p, outcome, retryAfter, fault);
  if (reason != END_REASON_NONE) end(op, reason);
}

// Schedules the retry after a failed attempt; or, without a change, the end reason.
// Sessions stay outside the budget and retry AMBIGUOUS and TIMEOUT: a connect has no
// effect to repeat.
function retryOrEnd(op: Operation, p: Policy, outcome: i32, retryAfter: u32, fault: bool): i32 {
  if (outcome == OUTCOME_PERMANENT) return END_REASON_PERMANENT;
  const request = (op.flags & OP_FLAG_SESSION) == 0;
  if (request) onFailure();
  const unsure = (outcome == OUTCOME_AMBIGUOUS) | (outcome == OUTCOME_TIMEOUT);
  if (request & !isIdempotent(p) & unsure) return END_REASON_AMBIGUOUS;
  // An attempt limit of 0 (none) wraps to the largest u32, which no level passes.
  if (op.level > p.maxAttempts - 1) return END_REASON_EXHAUSTED;
  const wait = max(drawWait(op, p, outcome == OUTCOME_THROTTLED), boundRetryAfter(p, retryAfter));
  if (op.flags & OP_FLAG_HAS_DEADLINE) {
    if (fault | (<i32>wait >= ticksUntil(clock.now, op.deadline))) return END_REASON_DEADLINE;
  }
  if (request) {
    const cost = retryCostOf(outcome == OUTCOME_TIMEOUT);
    if (!withdrawRetry(cost)) {
      count(COUNTER_RETRIES_DENIED);
      return END_REASON_BUDGET;
    }
    op.lastRetryCost = cost;
  }
  move(op, EVENT_RETRY);
  startAt(op, wait);
  count(COUNTER_RETRIES_SCHEDULED);
  return END_REASON_NONE;
}

/**
 * An UP session's connection went down: it waits for its next connect at a raised level,
 * the backoff's wait or, under SPREAD_DROP, a point of the spread window: a whole fleet
 * loses its broker at once, and its reconnects should not all fall in the backoff's
 * first, shortest ceiling.
 */
export function dropSession(op: Operation): void {
  const p = policyOf(op);
  move(op, EVENT_DROP);
  op.flags |= OP_FLAG_DROPPED;
  op.level = min(op.level + 1, LIMIT_MAX_ATTEMPTS);
  count(COUNTER_DROPS);
  // A return, not an else: wasm3 compiles each else into a code page of its own.
  if (p.flags & POLICY_FLAG_SPREAD_DROP) {
    startAt(op, spreadDraw(p));
    return;
  }
  startAt(op, drawWait(op, p, false));
}
