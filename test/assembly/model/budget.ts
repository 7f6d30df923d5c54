// The device-wide retry budget as docs/ABI.md ("Retry budget") defines it, in milli-tokens.
import { BudgetFlag } from "../../../host/library/src/generated/abi.js";

export class Budget {
  capacity = 0;
  tokens = 0;
  retryCost = 0;
  timeoutRetryCost = 0;
  threshold = 0;
  failureCost = 0;
  firstAttemptDeposit = 0;
  successDeposit = 0;
  /** init's budget is none (flag OFF). */
  flags: number = BudgetFlag.OFF;

  get enabled(): boolean {
    return (this.flags & BudgetFlag.OFF) === 0;
  }

  deposit(amount: number): void {
    this.tokens = Math.min(this.capacity, this.tokens + amount);
  }

  /** An attempt failed (not PERMANENT). */
  onFailure(): void {
    this.tokens = Math.max(0, this.tokens - this.failureCost);
  }

  /** Asks for a retry costing `cost`; withdraws it when allowed. */
  allowRetry(cost: number): boolean {
    if (!this.enabled) return true;
    // Capacity 0 allows no retry, as AWS's quota with 0 tokens (docs/ABI.md, Retry budget).
    if (this.capacity === 0 || this.tokens < cost + this.threshold) return false;
    this.tokens -= cost;
    return true;
  }

  /** A success; `lastRetryCost` is undefined when the operation had no retry. */
  onSuccess(lastRetryCost: number | undefined): void {
    const refund = (this.flags & BudgetFlag.REFUND_ON_SUCCESS) !== 0 && lastRetryCost !== undefined;
    this.deposit(refund ? lastRetryCost : this.successDeposit);
  }
}
