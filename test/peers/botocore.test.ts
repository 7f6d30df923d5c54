// botocore's standard retry mode, from its own unit tests (boto/botocore):
// tests/unit/retries/test_quota.py @ 5f5b537a and tests/unit/retries/test_standard.py @ 1b5722b7.
// A quota unit is 1000 milli-tokens; a "retry that acquires N" is a failure whose retry costs N;
// a "release" is a success (REFUND_ON_SUCCESS gives back what the operation's retry took, or
// successDeposit when it had none). docs/peers.md, botocore, says where the two part and why.
import { describe, expect, test } from "vitest";
import { Counter, EndReason, Outcome, State } from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { configured, peerPolicy, quota, runOperation } from "./peer-run.js";

const { TRANSIENT, SUCCESS, PERMANENT } = Outcome;
const retryTwice = peerPolicy({ maxAttempts: 3 });

describe("botocore tests/unit/retries/test_quota.py (TestRetryQuota, RetryQuota(50))", () => {
  test("test_can_acquire_amount: acquire 5 leaves 45", () => {
    const api = configured(retryTwice, quota(50, { retryCost: 5000 }));
    runOperation(api, [TRANSIENT]);
    expect(api.tokens()).toBe(45_000);
  });

  test("test_can_release_amount: acquire 5, release 5: back to 50", () => {
    const api = configured(retryTwice, quota(50, { retryCost: 5000 }));
    expect(runOperation(api, [TRANSIENT, SUCCESS]).endReason).toBe(EndReason.SUCCEEDED);
    expect(api.tokens()).toBe(50_000);
  });

  test("test_cant_exceed_max_capacity: acquire 5, release 10: 50, not 55", () => {
    const api = configured(retryTwice, quota(50, { retryCost: 5000, successDeposit: 10_000 }));
    runOperation(api, [TRANSIENT]);
    expect(api.tokens()).toBe(45_000);
    runOperation(api, [SUCCESS]); // no retry: successDeposit, 10
    expect(api.tokens()).toBe(50_000);
  });

  test("test_noop_if_at_max_capacity: release 10 at 50 stays 50", () => {
    const api = configured(retryTwice, quota(50, { successDeposit: 10_000 }));
    runOperation(api, [SUCCESS]);
    expect(api.tokens()).toBe(50_000);
  });

  test("test_cant_go_below_zero: acquire 49 leaves 1; acquire 10 is refused and leaves 1", () => {
    // The second acquisition is a retry after a timeout (timeoutRetryCost 10).
    const api = configured(
      peerPolicy({ maxAttempts: 3, attemptTimeout: 100 }),
      quota(50, { retryCost: 49_000, timeoutRetryCost: 10_000 }),
    );
    runOperation(api, [TRANSIENT]);
    expect(api.tokens()).toBe(1000);
    const h = api.begin(0, 1_000_000);
    api.poll(1_000_000);
    api.poll(1_000_100); // the attempt times out: its retry would cost 10
    expect(api.endReason(h)).toBe(EndReason.BUDGET);
    expect(api.tokens()).toBe(1000);
  });
});

describe("botocore tests/unit/retries/test_standard.py", () => {
  test("test_can_honor_max_attempts: max_attempts 3 retries after attempts 1 and 2, not 3", () => {
    const run = runOperation(configured(retryTwice), [TRANSIENT, TRANSIENT, TRANSIENT]);
    expect(run.attempts).toBe(3);
    expect(run.endReason).toBe(EndReason.EXHAUSTED);
  });

  test("TestExponentialBackoff.test_range_of_exponential_backoff: random 1, max_backoff 20 s", () => {
    // random() = 1 is the top of every range: jitter NONE waits the ceiling; 50 ms base.
    const run = runOperation(
      configured(peerPolicy({ maxAttempts: 12, baseDelay: 50, maxDelay: 20_000 })),
      Array(12).fill(TRANSIENT),
    );
    expect(run.waits).toEqual([50, 100, 200, 400, 800, 1600, 3200, 6400, 12_800, 20_000, 20_000]);
  });

  test("TestExponentialBackoff.test_exponential_backoff_with_jitter: attempt 3 within [0, 0.2 s]", () => {
    for (let seed = 1n; seed <= 10n; seed++) {
      const policy = peerPolicy({ maxAttempts: 4, baseDelay: 50, maxDelay: 20_000, jitter: "FULL" });
      const api = configured(policy, undefined, create(seed));
      const wait = runOperation(api, [TRANSIENT, TRANSIENT, TRANSIENT]).waits[2];
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThanOrEqual(200);
    }
  });

  test("TestRetryQuotaChecker.test_can_release_quota_based_on_context_value_on_success: 486, then 500", () => {
    // Standard retry v2.1's cost of a retry after a non-throttling error: 14.
    const api = configured(retryTwice, quota(500, { retryCost: 14_000, timeoutRetryCost: 14_000 }));
    const h = api.begin(0, 0);
    api.poll(0);
    api.report(h, 1, TRANSIENT, 0, 0);
    expect(api.tokens()).toBe(486_000);
    api.poll(api.nextAttemptAt(h));
    api.report(h, 2, SUCCESS, 0, api.nextAttemptAt(h));
    expect(api.tokens()).toBe(500_000);
  });

  test("TestRetryQuotaChecker.test_can_release_quota_when_succeed_after_throttling_error: 495, then 500", () => {
    // The module has one retry cost for every failure but a timeout: 5 here, the throttling cost.
    const api = configured(retryTwice, quota(500, { retryCost: 5000 }));
    const h = api.begin(0, 0);
    api.poll(0);
    api.report(h, 1, Outcome.THROTTLED, 0, 0);
    expect(api.tokens()).toBe(495_000);
    api.poll(api.nextAttemptAt(h));
    api.report(h, 2, SUCCESS, 0, api.nextAttemptAt(h));
    expect(api.tokens()).toBe(500_000);
  });

  test("TestRetryQuotaChecker.test_dont_release_quota_if_all_retries_failed: 486 stays", () => {
    const api = configured(peerPolicy({ maxAttempts: 2 }), quota(500, { retryCost: 14_000 }));
    expect(runOperation(api, [TRANSIENT, TRANSIENT]).endReason).toBe(EndReason.EXHAUSTED);
    expect(api.tokens()).toBe(486_000);
  });

  test("TestRetryQuotaChecker.test_can_release_default_quota_if_not_in_context: a success without retry gives 1", () => {
    const api = configured(retryTwice, quota(500, { initial: 486_000, successDeposit: 1000 }));
    runOperation(api, [SUCCESS]);
    expect(api.tokens()).toBe(487_000);
  });

  test("TestRetryQuotaChecker.test_acquire_quota_fails: initial 14, the first retry taken, the second refused", () => {
    const api = configured(retryTwice, quota(14, { retryCost: 14_000 }));
    expect(runOperation(api, [TRANSIENT]).state).toBe(State.WAITING); // retry granted: 0 left
    expect(api.tokens()).toBe(0);
    expect(runOperation(api, [TRANSIENT]).endReason).toBe(EndReason.BUDGET);
  });

  test("TestRetryQuotaChecker.test_quota_reached_adds_retry_metadata: initial capacity 0 allows no retry", () => {
    // Since ABI v5 capacity 0 is AWS's empty quota, not "no budget" (flag OFF is that).
    const api = configured(retryTwice, quota(0, { retryCost: 5000 }));
    expect(runOperation(api, [TRANSIENT]).endReason).toBe(EndReason.BUDGET);
    expect(api.counter(Counter.RETRIES_DENIED)).toBe(1);
  });

  test("TestRetryQuotaChecker.test_single_failed_request_does_not_give_back_quota: a 400 ends, 450 stays", () => {
    const api = configured(retryTwice, quota(500, { initial: 450_000, successDeposit: 1000 }));
    const run = runOperation(api, [PERMANENT]);
    expect([run.state, run.endReason]).toEqual([State.DONE, EndReason.PERMANENT]);
    expect(api.tokens()).toBe(450_000);
  });
});
