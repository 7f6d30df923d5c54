// The device-wide retry budget: one token bucket in milli-tokens shared by every
// operation. Its fields cover AWS standard mode (retry and timeout costs, refund on
// success), the SRE ratio (first attempts deposit a fraction, retries withdraw one)
// and gRPC throttling (failures withdraw, successes deposit, retries only above a
// threshold). "No budget" is a mode of its own (flag OFF, init's); otherwise capacity 0
// allows no retry, as AWS's quota does with 0 tokens.
import { touch } from "./changes";
import {
  BUDGET_FLAG_OFF,
  BUDGET_FLAG_REFUND_ON_SUCCESS,
  ERROR_BAD_FIELD,
  ERROR_NOT_INITIALIZED,
  RESULT_OK,
} from "./generated/constants";
import { isInitialized } from "./ready";
import { isSpan } from "./ticks";
import { BUDGET_AT, Budget, STATE } from "./state";

const bucket = changetype<Budget>(STATE + BUDGET_AT);

/** Validates and sets every field; tokens start at `initial`. A refused call changes nothing. */
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
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const fields =
    capacity_ |
    initial |
    retryCost_ |
    timeoutRetryCost_ |
    threshold_ |
    failureCost_ |
    firstAttemptDeposit_ |
    successDeposit_;
  const off = (flags_ & BUDGET_FLAG_OFF) != 0;
  // OFF with any other field set is refused: the caller meant a budget and would get none.
  const bad =
    !isSpan(fields) |
    (initial > capacity_) |
    (threshold_ > capacity_) |
    (flags_ > <u32>(BUDGET_FLAG_REFUND_ON_SUCCESS | BUDGET_FLAG_OFF)) |
    (off & ((fields | (flags_ & BUDGET_FLAG_REFUND_ON_SUCCESS)) != 0));
  if (bad) return ERROR_BAD_FIELD;
  touch();
  bucket.capacity = capacity_;
  bucket.tokens = initial;
  bucket.retryCost = retryCost_;
  bucket.timeoutRetryCost = timeoutRetryCost_;
  bucket.threshold = threshold_;
  bucket.failureCost = failureCost_;
  bucket.firstAttemptDeposit = firstAttemptDeposit_;
  bucket.successDeposit = successDeposit_;
  bucket.flags = flags_;
  return RESULT_OK;
}

/** init: no budget. */
export function budgetOff(): void {
  bucket.flags = BUDGET_FLAG_OFF;
}

/** Current tokens in milli-tokens. */
export function budgetTokens(): u32 {
  return bucket.tokens;
}

function deposit(amount: u32): void {
  bucket.tokens = min(bucket.capacity, bucket.tokens + amount);
}

/** A first attempt starts. */
export function onFirstAttempt(): void {
  deposit(bucket.firstAttemptDeposit);
}

/** An attempt failed (any outcome but SUCCESS and PERMANENT). */
export function onFailure(): void {
  const tokens = bucket.tokens;
  bucket.tokens = tokens - min(tokens, bucket.failureCost);
}

/** The cost a retry after this failure withdraws. */
export function retryCostOf(timedOut: bool): u32 {
  return timedOut ? bucket.timeoutRetryCost : bucket.retryCost;
}

/** Withdraws `cost` if the bucket keeps at least `threshold` after it; false when denied. */
export function withdrawRetry(cost: u32): bool {
  if (bucket.flags & BUDGET_FLAG_OFF) return true;
  // cost and threshold are spans (below 2^31): their sum cannot wrap. A bucket of capacity 0
  // holds nothing to retry with, even at cost 0.
  const granted = (bucket.capacity != 0) & (bucket.tokens >= cost + bucket.threshold);
  if (granted) bucket.tokens -= cost;
  return granted;
}

/** An operation succeeded; `lastRetryCost` is what its last retry withdrew, if `hadRetry`. */
export function onSuccess(hadRetry: bool, lastRetryCost: u32): void {
  // A retry that cost 0 is still a retry: it refunds 0, not successDeposit.
  const refund = ((bucket.flags & BUDGET_FLAG_REFUND_ON_SUCCESS) != 0) & hadRetry;
  deposit(select<u32>(lastRetryCost, bucket.successDeposit, refund)); // select: see drawWait
}
