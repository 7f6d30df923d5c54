// The policy table: LIMIT_POLICIES slots in static memory, set through setPolicy.
import {
  ERROR_BAD_FIELD,
  ERROR_BAD_POLICY,
  ERROR_NOT_INITIALIZED,
  ERROR_SPAN_TOO_LARGE,
  JITTER_DECORRELATED,
  LIMIT_MAX_ATTEMPTS,
  LIMIT_POLICIES,
  POLICY_FLAG_IDEMPOTENT,
  POLICY_FLAG_JITTER_MASK,
  RESULT_OK,
} from "./generated/constants";
import { touch } from "./changes";
import { isInitialized } from "./machine";
import { isSpan } from "./ticks";
import { POLICIES_AT, Policy, STATE } from "./state";

const POLICIES: usize = STATE + POLICIES_AT;

/** The policy in slot id, or null when id is out of range or the slot was never set. */
export function policyAt(id: u32): Policy | null {
  if (id >= <u32>LIMIT_POLICIES) return null;
  const p = changetype<Policy>(POLICIES + id * offsetof<Policy>());
  return p.isSet ? p : null;
}

/** The code setPolicy answers for these fields: OK, or why it refuses them. */
export function checkPolicy(
  id: u32,
  maxAttempts: u32,
  attemptTimeout: u32,
  baseDelay: u32,
  maxDelay: u32,
  throttleBaseDelay: u32,
  deadline: u32,
  flags: u32,
): i32 {
  if (id >= <u32>LIMIT_POLICIES) return ERROR_BAD_POLICY;
  if (!isSpan(attemptTimeout | baseDelay | maxDelay | throttleBaseDelay | deadline)) {
    return ERROR_SPAN_TOO_LARGE;
  }
  // maxAttempts 1 to 255: maxAttempts - 1 wraps above 254 when 0.
  const bad =
    (maxAttempts - 1 > <u32>LIMIT_MAX_ATTEMPTS - 1) |
    (attemptTimeout == 0) |
    (baseDelay > maxDelay) |
    (flags > <u32>(POLICY_FLAG_JITTER_MASK | POLICY_FLAG_IDEMPOTENT));
  return bad ? ERROR_BAD_FIELD : RESULT_OK;
}

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
): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const refusal = checkPolicy(
    id,
    maxAttempts,
    attemptTimeout,
    baseDelay,
    maxDelay,
    throttleBaseDelay,
    deadline,
    flags,
  );
  if (refusal != RESULT_OK) return refusal;
  touch();
  const p = changetype<Policy>(POLICIES + id * offsetof<Policy>());
  p.isSet = 1;
  p.maxAttempts = maxAttempts;
  p.flags = flags;
  p.attemptTimeout = attemptTimeout;
  p.baseDelay = baseDelay;
  p.maxDelay = maxDelay;
  p.throttleBaseDelay = throttleBaseDelay;
  p.deadline = deadline;
  return RESULT_OK;
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
  const cap = <u64>p.maxDelay;
  const base = min(<u64>max(p.baseDelay, p.throttleBaseDelay), cap);
  // Retry n's bound is min(cap, base * 2^(n-1)); a decorrelated wait may be three times
  // the one before, the first three times the base: min(cap, base * 3^n).
  // The growth factor: 3 decorrelated, else 2; the first bound is base * (2 * factor - 3).
  const factor = <u64>(jitterOf(p) == JITTER_DECORRELATED) + 2;
  let bound = base * (factor * 2 - 3);
  let total = <u64>p.maxAttempts * <u64>p.attemptTimeout;
  for (let retry: u32 = 1; retry < <u32>p.maxAttempts; retry++) {
    bound = min(bound, cap);
    total += bound;
    bound *= factor;
  }
  if (p.deadline != 0 && total > <u64>p.deadline) total = p.deadline;
  return total > <u64>0x7fffffff ? 0x7fffffff : <i32>total;
}
