// The device-wide retry budget: one token bucket in milli-tokens shared by every
// operation. Its fields cover AWS standard mode (retry and timeout costs, refund on
// success), the SRE ratio (first attempts deposit a fraction, retries withdraw one)
// and gRPC throttling (failures withdraw, successes deposit, retries only above a
// threshold). Capacity 0 turns the budget off.
import { BUDGET_FLAG_REFUND_ON_SUCCESS, ERROR_BAD_FIELD, RESULT_OK } from "./constants";
import { Tick } from "./ticks";

let capacity: u32 = 0;
let tokens: u32 = 0;
let retryCost: u32 = 0;
let timeoutRetryCost: u32 = 0;
let threshold: u32 = 0;
let failureCost: u32 = 0;
let firstAttemptDeposit: u32 = 0;
let successDeposit: u32 = 0;
let flags: u32 = 0;

/** Validates and sets every field; tokens start at `initial`. */
export function setBudget(
  capacity_: u32,
  initial: u32,
  retryCost_: u32,
  timeoutRetryCost_: u32,
  threshold_: u32,
  failureCost_: u32,
  firstAttemptDeposit_: u32,
  successDeposit_: u32,
  flags_: u32,
): i32 {
  const fields = capacity_ | initial | retryCost_ | timeoutRetryCost_ | threshold_;
  if (!Tick.isSpan(fields | failureCost_ | firstAttemptDeposit_ | successDeposit_)) return ERROR_BAD_FIELD;
  if (initial > capacity_ || threshold_ > capacity_) return ERROR_BAD_FIELD;
  if (flags_ & ~BUDGET_FLAG_REFUND_ON_SUCCESS) return ERROR_BAD_FIELD;
  capacity = capacity_;
  tokens = initial;
  retryCost = retryCost_;
  timeoutRetryCost = timeoutRetryCost_;
  threshold = threshold_;
  failureCost = failureCost_;
  firstAttemptDeposit = firstAttemptDeposit_;
  successDeposit = successDeposit_;
  flags = flags_;
  return RESULT_OK;
}

/** Turns the budget off (init). */
export function resetBudget(): void {
  setBudget(0, 0, 0, 0, 0, 0, 0, 0, 0);
}

/** Current tokens in milli-tokens. */
export function budgetTokens(): u32 {
  return tokens;
}

function deposit(amount: u32): void {
  tokens = min(capacity, tokens + amount);
}

/** A first attempt starts. */
export function onFirstAttempt(): void {
  deposit(firstAttemptDeposit);
}

/** An attempt failed (any outcome but SUCCESS and PERMANENT). */
export function onFailure(): void {
  tokens = tokens > failureCost ? tokens - failureCost : 0;
}

/** The cost a retry after this failure withdraws. */
export function retryCostOf(timedOut: bool): u32 {
  return timedOut ? timeoutRetryCost : retryCost;
}

/** Withdraws `cost` if the bucket keeps at least `threshold` after it; false when denied. */
export function withdrawRetry(cost: u32): bool {
  if (capacity == 0) return true;
  if (<u64>tokens < <u64>cost + <u64>threshold) return false;
  tokens -= cost;
  return true;
}

/** An operation succeeded; `lastRetryCost` is what its last retry withdrew, if `hadRetry`. */
export function onSuccess(hadRetry: bool, lastRetryCost: u32): void {
  // A retry that cost 0 is still a retry: it refunds 0, not successDeposit.
  const refund = (flags & BUDGET_FLAG_REFUND_ON_SUCCESS) != 0 && hadRetry;
  deposit(refund ? lastRetryCost : successDeposit);
}
