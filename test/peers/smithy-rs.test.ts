// smithy-rs's standard retry strategy and token bucket, from their own tests
// (smithy-lang/smithy-rs @ 56ee88c5): rust-runtime/aws-smithy-runtime/src/client/retries/
// strategy/standard.rs and .../retries/token_bucket.rs. `with_use_static_exponential_base`
// is jitter NONE. Standard 2.0: 1 s base, a retry costs 5 (10 after a transient error), the
// default bucket 500; the 2.1 spec: 50 ms base (1 s after throttling), a retry costs 14 (5
// after throttling). The module has one retryCost: each case sets the one its errors cost.
// docs/peers.md, smithy-rs, says where the two part and why.
import { describe, expect, test } from "vitest";
import { EndReason, Outcome } from "../../host/library/src/generated/abi.js";
import { NO_BUDGET } from "../../host/library/src/policy.js";
import { configured, peerPolicy, quota, runOperation } from "./peer-run.js";
import { decide, type Response } from "./steps.js";

const { SUCCESS, TRANSIENT, THROTTLED, AMBIGUOUS, PERMANENT } = Outcome;
const SERVER_ERROR = AMBIGUOUS; // RetryAction::server_error(): a 5xx, retried as idempotent

interface Options {
  maxAttempts?: number;
  /** RetrySpec::v2_1(): 50 ms base, 14-token retries. */
  v21?: boolean;
  initialBackoff?: number;
  maxBackoff?: number;
  /** The bucket's capacity (TokenBucket::new(n)); 500 by default. */
  tokens?: number;
  cost?: number;
  maxRetryAfter?: number;
}

/** RetryConfig::standard() with the static exponential base, and its token bucket. */
function standard(o: Options = {}) {
  const policy = peerPolicy({
    maxAttempts: o.maxAttempts ?? 3,
    baseDelay: o.initialBackoff ?? (o.v21 ? 50 : 1000),
    throttleBaseDelay: 1000,
    maxDelay: o.maxBackoff ?? 20_000,
    jitter: "NONE",
    maxRetryAfter: o.maxRetryAfter,
  });
  const cost = (o.cost ?? (o.v21 ? 14 : 5)) * 1000;
  return configured(
    policy,
    quota(o.tokens ?? 500, { retryCost: cost, timeoutRetryCost: cost, successDeposit: 1000 }),
  );
}

const failing = (n: number, outcome: number = SERVER_ERROR): Response[] => Array(n).fill([outcome]);

describe("smithy-rs rust-runtime/aws-smithy-runtime/src/client/retries/strategy/standard.rs", () => {
  test("no_retry_necessary_for_ok_result", () => {
    expect(decide(standard(), [[SUCCESS]])).toEqual([["SUCCEEDED", 500]]);
  });

  test("should_retry_{transient,client,server,throttling}_error_result_after_2s: attempt 3 of 4 waits 4 s", () => {
    for (const kind of [TRANSIENT, TRANSIENT, SERVER_ERROR, THROTTLED]) {
      expect(runOperation(standard({ maxAttempts: 4 }), [kind, kind, kind]).waits[2]).toBe(4000);
    }
  });

  test("dont_retry_when_out_of_attempts: attempt 4 of 4", () => {
    expect(decide(standard({ maxAttempts: 4 }), failing(4, TRANSIENT))[3]).toEqual(["EXHAUSTED", 485]);
  });

  test("should_not_panic_when_exponential_backoff_duration_could_not_be_created: attempt 33 waits the 20 s cap", () => {
    expect(runOperation(standard({ maxAttempts: 100 }), Array(33).fill(TRANSIENT)).waits[32]).toBe(20_000);
  });

  test("eventual_success: 1 s, 2 s; 495, 490, success refunds to 495", () => {
    expect(decide(standard({ maxAttempts: 5 }), [...failing(2), [SUCCESS]])).toEqual([
      ["retry", 495, 1000],
      ["retry", 490, 2000],
      ["SUCCEEDED", 495],
    ]);
  });

  test("no_more_attempts: 3 attempts", () => {
    expect(decide(standard(), failing(3))).toEqual([
      ["retry", 495, 1000],
      ["retry", 490, 2000],
      ["EXHAUSTED", 490],
    ]);
  });

  test("successful_request_and_deser_should_be_retryable: TokenBucket::new(5), a Running answer retried, then Complete", () => {
    // The waiter's classifier retries a successful "Running" answer: the host reports it failed.
    expect(decide(standard({ maxAttempts: 5, tokens: 5 }), [[TRANSIENT], [SUCCESS]])).toEqual([
      ["retry", 0, 1000],
      ["SUCCEEDED", 5],
    ]);
  });

  test("no_quota: TokenBucket::new(5)", () => {
    expect(decide(standard({ maxAttempts: 5, tokens: 5 }), failing(2))).toEqual([
      ["retry", 0, 1000],
      ["BUDGET", 0],
    ]);
  });

  test("quota_replenishes_on_success: 90, 80, 90; the explicit 1 s delay does not shorten the 2 s backoff (documented)", () => {
    // smithy waits the classifier's explicit 1 s instead of its 2 s backoff; the module's
    // Retry-After only raises a wait (as smithy's own 2.1 spec: v2_1_retry_after_below_t_i_uses_t_i).
    const api = standard({ maxAttempts: 5, tokens: 100, cost: 10 }); // a transient error costs 10
    expect(decide(api, [[TRANSIENT], [TRANSIENT, 1000], [SUCCESS]])).toEqual([
      ["retry", 90, 1000],
      ["retry", 80, 2000],
      ["SUCCEEDED", 90],
    ]);
  });

  test("quota_replenishes_on_first_try_success: 20 permits drained in 2 retries, refilled by 20 first-try successes", () => {
    const api = standard({ maxAttempts: 0, tokens: 20, cost: 10 });
    runOperation(api, [TRANSIENT, TRANSIENT]); // its permit forgotten: cancelled, nothing refunded
    expect(api.tokens()).toBe(0);
    let successes = 0;
    while (api.tokens() < 20_000 && successes < 21) {
      runOperation(api, [SUCCESS]);
      successes++;
    }
    expect([successes + 3, api.tokens()]).toEqual([23, 20_000]); // attempt == 23
  });

  test("backoff_timing: 1, 2, 4, 8 s; 495 to 480", () => {
    expect(decide(standard({ maxAttempts: 5 }), failing(5))).toEqual([
      ["retry", 495, 1000],
      ["retry", 490, 2000],
      ["retry", 485, 4000],
      ["retry", 480, 8000],
      ["EXHAUSTED", 480],
    ]);
  });

  test("max_backoff_time: 1 s initial, 3 s max: 1, 2, 3, 3 s", () => {
    const waits = runOperation(
      standard({ maxAttempts: 5, maxBackoff: 3000 }),
      Array(5).fill(SERVER_ERROR),
    ).waits;
    expect(waits).toEqual([1000, 2000, 3000, 3000]);
  });

  test("calculate_exponential_backoff_where_initial_backoff_is_{one,greater_than_one,less_than_one}", () => {
    for (const [base, expected] of [
      [1000, [1000, 2000, 4000]],
      [3000, [3000, 6000, 12_000]],
      [30, [30, 60, 120]],
    ] as const) {
      const run = runOperation(standard({ maxAttempts: 4, initialBackoff: base }), Array(4).fill(TRANSIENT));
      expect(run.waits).toEqual(expected);
    }
  });

  test("calculate_backoff_overflow_should_gracefully_fallback_to_max_backoff: base 10 s, the 300th retry", () => {
    const run = runOperation(
      standard({ maxAttempts: 0, initialBackoff: 10_000 }),
      Array(300).fill(TRANSIENT),
    );
    expect(run.waits.at(-1)).toBe(20_000);
  });

  test("v2_1_non_throttling_uses_50ms_backoff, v2_1_throttling_uses_1s_backoff", () => {
    expect(runOperation(standard({ v21: true }), [SERVER_ERROR]).waits).toEqual([50]);
    expect(runOperation(standard({ v21: true }), [THROTTLED]).waits).toEqual([1000]);
  });

  test("v2_0_non_throttling_uses_1s_backoff", () => {
    expect(runOperation(standard(), [SERVER_ERROR]).waits).toEqual([1000]);
  });

  test("v2_1_retry_after_bounded_between_t_i_and_t_i_plus_5s: 3 s", () => {
    expect(runOperation(standard({ v21: true }), [SERVER_ERROR], 0, 3000).waits).toEqual([3000]);
  });

  test("v2_1_retry_after_below_t_i_uses_t_i: 10 ms waits 50 ms", () => {
    expect(runOperation(standard({ v21: true }), [SERVER_ERROR], 0, 10).waits).toEqual([50]);
  });

  test("v2_1_retry_after_above_t_i_plus_5s_capped: 10 s is not cut to 5.05 s; the bound is fixed (documented)", () => {
    expect(runOperation(standard({ v21: true }), [SERVER_ERROR], 0, 10_000).waits).toEqual([10_000]);
    // The first retry's t_i + 5 s, set as the fixed bound, gives smithy's number for that retry.
    expect(
      runOperation(standard({ v21: true, maxRetryAfter: 5050 }), [SERVER_ERROR], 0, 10_000).waits,
    ).toEqual([5050]);
  });

  test("v2_0_retry_after_capped_at_max_backoff: 30 s waits 20 s", () => {
    expect(runOperation(standard(), [SERVER_ERROR], 0, 30_000).waits).toEqual([20_000]);
  });

  test("long_polling_backs_off_when_token_bucket_empty: ends BUDGET at once, no 50 ms hint (documented)", () => {
    const run = runOperation(standard({ v21: true, maxAttempts: 5, tokens: 0 }), [SERVER_ERROR]);
    expect([run.endReason, run.waits]).toEqual([EndReason.BUDGET, []]);
  });

  test("non_long_polling_no_backoff_when_token_bucket_empty", () => {
    const run = runOperation(standard({ maxAttempts: 5, tokens: 0 }), [SERVER_ERROR]);
    expect([run.endReason, run.waits]).toEqual([EndReason.BUDGET, []]);
  });

  test("retry_eventually_succeeds (2.1)", () => {
    expect(decide(standard({ v21: true }), [...failing(2), [SUCCESS]])).toEqual([
      ["retry", 486, 50],
      ["retry", 472, 100],
      ["SUCCEEDED", 486],
    ]);
  });

  test("fail_due_to_max_attempts_reached (2.1)", () => {
    expect(decide(standard({ v21: true }), failing(3))).toEqual([
      ["retry", 486, 50],
      ["retry", 472, 100],
      ["EXHAUSTED", 472],
    ]);
  });

  test("retry_quota_reached_after_single_retry (2.1): capacity 14", () => {
    expect(decide(standard({ v21: true, maxAttempts: 5, tokens: 14 }), failing(2))).toEqual([
      ["retry", 0, 50],
      ["BUDGET", 0],
    ]);
  });

  test("no_retries_if_retry_quota_is_zero (2.1)", () => {
    expect(decide(standard({ v21: true, tokens: 0 }), failing(1))).toEqual([["BUDGET", 0]]);
  });

  test("retry_stops_after_retry_quota_exhaustion (2.1): capacity 20", () => {
    expect(decide(standard({ v21: true, maxAttempts: 5, tokens: 20 }), failing(2))).toEqual([
      ["retry", 6, 50],
      ["BUDGET", 6],
    ]);
  });

  test("retry_quota_recovery_after_successful_responses (2.1): capacity 30", () => {
    const responses: Response[] = [[SERVER_ERROR], [SERVER_ERROR], [SUCCESS], [SERVER_ERROR], [SUCCESS]];
    expect(decide(standard({ v21: true, maxAttempts: 5, tokens: 30 }), responses)).toEqual([
      ["retry", 16, 50],
      ["retry", 2, 100],
      ["SUCCEEDED", 16],
      ["retry", 2, 50],
      ["SUCCEEDED", 16],
    ]);
  });

  test("throttling_error_token_bucket_drain_and_backoff (2.1): 495 after 1 s, then 500", () => {
    expect(decide(standard({ v21: true, cost: 5 }), [[THROTTLED], [SUCCESS]])).toEqual([
      ["retry", 495, 1000],
      ["SUCCEEDED", 500],
    ]);
  });

  test("long_polling_backoff_after_throttling_error_when_token_bucket_empty: ends BUDGET at once, no 1 s hint (documented)", () => {
    const run = runOperation(standard({ v21: true, maxAttempts: 5, tokens: 0, cost: 5 }), [THROTTLED]);
    expect([run.endReason, run.waits]).toEqual([EndReason.BUDGET, []]);
  });

  test("long_polling_max_attempts_exceeded_must_not_delay", () => {
    expect(decide(standard({ v21: true, maxAttempts: 2 }), failing(2))).toEqual([
      ["retry", 486, 50],
      ["EXHAUSTED", 486],
    ]);
  });

  test("long_polling_success_must_not_delay", () => {
    expect(decide(standard({ v21: true, maxAttempts: 2 }), [[SERVER_ERROR], [SUCCESS]])).toEqual([
      ["retry", 486, 50],
      ["SUCCEEDED", 500],
    ]);
  });

  test("long_polling_non_retryable_errors_must_not_delay: NoActionIndicated ends the operation", () => {
    expect(decide(standard({ v21: true, maxAttempts: 2 }), [[PERMANENT]])).toEqual([["PERMANENT", 500]]);
  });

  test("verify_max_backoff_time (2.1): 50, 100, 200, 200 ms", () => {
    expect(decide(standard({ v21: true, maxAttempts: 5, maxBackoff: 200 }), failing(5))).toEqual([
      ["retry", 486, 50],
      ["retry", 472, 100],
      ["retry", 458, 200],
      ["retry", 444, 200],
      ["EXHAUSTED", 444],
    ]);
  });
});

describe("smithy-rs rust-runtime/aws-smithy-runtime/src/client/retries/token_bucket.rs", () => {
  test("test_unlimited_token_bucket: no budget (OFF) allows every retry and costs nothing", () => {
    const api = configured(peerPolicy({ maxAttempts: 0 }), NO_BUDGET);
    const run = runOperation(api, Array(100).fill(THROTTLED));
    expect([run.waits.length, api.tokens()]).toEqual([100, 0]);
  });

  test("test_bounded_permits_exhaustion: capacity 10, a throttling retry costs 5: two permits", () => {
    const api = standard({ tokens: 10, cost: 5 });
    const granted = Array.from({ length: 100 }, () => runOperation(api, [THROTTLED]).waits.length);
    expect(granted.filter((n) => n === 1)).toHaveLength(2);
    expect(granted.slice(0, 3)).toEqual([1, 1, 0]);
  });

  test("test_fractional_tokens_accumulate_and_convert: success_reward 0.4; the third success makes a whole token", () => {
    const api = configured(
      peerPolicy({ maxAttempts: 2 }),
      quota(10, { initial: 0, retryCost: 1000, successDeposit: 400, refundOnSuccess: false }),
    );
    const wholeAfter = [1, 2, 3].map(() => {
      runOperation(api, [SUCCESS]);
      return Math.floor(api.tokens() / 1000); // milli-tokens hold the fraction
    });
    expect(wholeAfter).toEqual([0, 0, 1]);
  });

  test("test_fractional_tokens_respect_max_capacity: 20 rewards of 2.0 stop at 10", () => {
    const api = configured(
      peerPolicy({ maxAttempts: 2 }),
      quota(10, { successDeposit: 2000, refundOnSuccess: false }),
    );
    for (let i = 0; i < 20; i++) runOperation(api, [SUCCESS]);
    expect(api.tokens()).toBe(10_000);
  });

  test("test_refill_rates: 10 tokens/s for 2 s adds 20; the module never refills by time, 9 s on (documented)", () => {
    const api = standard({ tokens: 100, cost: 100 });
    runOperation(api, [THROTTLED]); // empties the bucket
    expect(api.tokens()).toBe(0);
    expect(runOperation(api, [THROTTLED], 10_000).endReason).toBe(EndReason.BUDGET);
    expect(api.tokens()).toBe(0);
  });
});
