// The policies' settings: setPolicy checks and stores them in the policy table
// (policy-table.ts), and the readers of a policy's flags and worst case.
import {
  COUNTER_RETRY_AFTER_CLAMPED,
  ERROR_BAD_FIELD,
  ERROR_BAD_POLICY,
  ERROR_NOT_INITIALIZED,
  ERROR_SPAN_TOO_LARGE,
  JITTER_DECORRELATED,
  LIMIT_MAX_ATTEMPTS,
  LIMIT_MAX_SPAN,
  LIMIT_POLICIES,
  POLICY_FLAG_IDEMPOTENT,
  POLICY_FLAG_JITTER_MASK,
  POLICY_FLAG_KICK,
  POLICY_FLAG_SESSION,
  POLICY_FLAG_SPREAD_DROP,
  POLICY_FLAG_SPREAD_FIRST,
  RESULT_OK,
} from "./generated/constants";
import { resetBreaker } from "./breaker";
import { touch } from "./changes";
import { count } from "./counters";
import { isInitialized } from "./ready";
import { isSpan } from "./ticks";
import { policyAt, policyRecord } from "./policy-table";
import { Policy } from "./state";

const FLAGS: u32 =
  POLICY_FLAG_JITTER_MASK |
  POLICY_FLAG_IDEMPOTENT |
  POLICY_FLAG_SESSION |
  POLICY_FLAG_KICK |
  POLICY_FLAG_SPREAD_FIRST |
  POLICY_FLAG_SPREAD_DROP;

/** Validates and sets policy slot id; a refused call leaves the slot as it was. */
export function setPolicy(
  id: u32,
  maxAttempts: u32,
  attemptTimeout: u32,
  baseDelay: u32,
  maxDelay: u32,
  throttleBaseDelay: u32,
  deadline: u32,
  flags: u32,
  stableAfter: u32,
  spread: u32,
  breakAfter: u32,
  breakBase: u32,
  breakCap: u32,
  maxRetryAfter: u32,
): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  if (id >= <u32>LIMIT_POLICIES) return ERROR_BAD_POLICY;
  const waits = attemptTimeout | baseDelay | maxDelay | throttleBaseDelay | deadline;
  if (!isSpan(waits | stableAfter | spread | breakBase | breakCap | maxRetryAfter))
    return ERROR_SPAN_TOO_LARGE;
  // A session has no overall deadline: it ends only by cancel, PERMANENT or its attempt limit.
  const bad =
    ((maxAttempts | breakAfter) > <u32>LIMIT_MAX_ATTEMPTS) |
    (attemptTimeout == 0) |
    (baseDelay > maxDelay) |
    (flags > FLAGS) |
    ((flags & POLICY_FLAG_SESSION) != 0 && deadline != 0) |
    (breakBase > breakCap);
  if (bad) return ERROR_BAD_FIELD;
  touch();
  const p = policyRecord(id);
  p.isSet = 1;
  p.maxAttempts = maxAttempts;
  p.flags = flags;
  p.attemptTimeout = attemptTimeout;
  p.baseDelay = baseDelay;
  p.maxDelay = maxDelay;
  p.throttleBaseDelay = throttleBaseDelay;
  p.deadline = deadline;
  p.stableAfter = stableAfter;
  p.spread = spread;
  p.breakAfter = breakAfter;
  p.breakBase = breakBase;
  p.breakCap = breakCap;
  p.maxRetryAfter = maxRetryAfter;
  resetBreaker(id, p);
  return RESULT_OK;
}

/**
 * A server's Retry-After bounded by the policy's maxRetryAfter (0: maxDelay, the policy's own
 * largest wait): a hostile or mistaken answer cannot park an operation, or a session that
 * has no deadline, for days. A larger one is clamped and counted.
 */
export function boundRetryAfter(p: Policy, retryAfter: u32): u32 {
  const bound = p.maxRetryAfter || p.maxDelay;
  if (retryAfter <= bound) return retryAfter;
  count(COUNTER_RETRY_AFTER_CLAMPED);
  return bound;
}

/** True when AMBIGUOUS failures and timeouts may be retried. */
export function isIdempotent(p: Policy): bool {
  return (p.flags & POLICY_FLAG_IDEMPOTENT) != 0;
}

/** The policy's jitter mode. */
export function jitterOf(p: Policy): u32 {
  return p.flags & POLICY_FLAG_JITTER_MASK;
}

/**
 * Worst-case ticks from begin to end of an operation under policy `id` (or NOT_INITIALIZED,
 * BAD_POLICY): every attempt runs to its timeout and every wait reaches its ceiling (from
 * the larger of the two bases), bounded by the deadline. Retry-After is left out: only the
 * deadline bounds it.
 */
export function worstCase(id: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const found = policyAt(id);
  if (found == null) return ERROR_BAD_POLICY;
  const p = changetype<Policy>(found);
  // The deadline bounds it, and without an attempt limit only the deadline does.
  const limit = p.deadline || <u32>LIMIT_MAX_SPAN;
  if (p.maxAttempts == 0) return <i32>limit;
  const cap = <u64>p.maxDelay;
  const base = <u64>max(p.baseDelay, p.throttleBaseDelay);
  // Retry n's bound is min(cap, base * 2^(n-1)); a decorrelated wait may be three times
  // the one before, the first three times the base: min(cap, base * 3^n). (A base above cap
  // gives cap either way: no min(base, cap) needed.)
  // The growth factor: 3 decorrelated, else 2; the first bound is base * (2 * factor - 3).
  const factor = <u64>((p.flags & POLICY_FLAG_JITTER_MASK) == JITTER_DECORRELATED) + 2;
  let bound = base * (factor * 2 - 3);
  let total = <u64>p.maxAttempts * <u64>p.attemptTimeout;
  for (let retry: u32 = 1; retry < <u32>p.maxAttempts; retry++) {
    bound = min(bound, cap);
    total += bound;
    bound *= factor;
  }
  return <i32>min(total, <u64>limit);
}
