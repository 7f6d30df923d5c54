// aws-sdk-go-v2's standard retryer, from its own tests (aws/aws-sdk-go-v2):
// aws/retry/retry2026_test.go @ 058d9848 (TestRetry2026StandardMode: the 2026 standard-mode
// table, `exponentialBase: 1` being jitter NONE), aws/ratelimit/token_rate_limit_test.go
// @ 843b02ad, aws/retry/standard_test.go @ 24359999 and aws/retry/jitter_backoff_test.go
// @ 843b02ad. Its retry costs 14 quota units (5 after a throttling error, which the module's
// single retryCost takes for that case), a success refunds the last retry's cost.
// docs/peers.md, aws-sdk-go-v2, says where the two part and why.
import { describe, expect, test } from "vitest";
import { classifyHttp, EndReason, Outcome } from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { configured, peerPolicy, quota, runOperation } from "./peer-run.js";
import { decide, type Response } from "./steps.js";

const http = (status: number) => classifyHttp(status, 0);
const THROTTLING = Outcome.THROTTLED; // a 400 with the error code "Throttling": the host reads the code

/** newRetry2026Retryer: 3 attempts, 50 ms base (1 s after throttling), 20 s cap, 500 tokens. */
function retryer(o: {
  maxAttempts?: number;
  maxBackoff?: number;
  base?: number;
  tokens?: number;
  cost?: number;
}) {
  const policy = peerPolicy({
    maxAttempts: o.maxAttempts ?? 3,
    baseDelay: o.base ?? 50,
    throttleBaseDelay: 1000,
    maxDelay: o.maxBackoff ?? 20_000,
    jitter: "NONE",
  });
  const cost = (o.cost ?? 14) * 1000;
  return configured(
    policy,
    quota(o.tokens ?? 500, { retryCost: cost, timeoutRetryCost: cost, successDeposit: 1000 }),
  );
}

describe("aws-sdk-go-v2 aws/retry/retry2026_test.go (TestRetry2026StandardMode)", () => {
  test("retry eventually succeeds: 486 after 50 ms, 472 after 100 ms, success refunds to 486", () => {
    expect(decide(retryer({}), [[http(500)], [http(500)], [http(200)]])).toEqual([
      ["retry", 486, 50],
      ["retry", 472, 100],
      ["SUCCEEDED", 486],
    ]);
  });

  test("fail due to max attempts reached: three 502s", () => {
    expect(decide(retryer({}), [[http(502)], [http(502)], [http(502)]])).toEqual([
      ["retry", 486, 50],
      ["retry", 472, 100],
      ["EXHAUSTED", 472],
    ]);
  });

  test("retry quota reached after a single retry: 14 tokens", () => {
    expect(decide(retryer({ tokens: 14 }), [[http(500)], [http(500)]])).toEqual([
      ["retry", 0, 50],
      ["BUDGET", 0],
    ]);
  });

  test("no retries at all if retry quota is 0", () => {
    expect(decide(retryer({ tokens: 0 }), [[http(500)]])).toEqual([["BUDGET", 0]]);
  });

  test("verifying exponential backoff timing: 50, 100, 200, 400 ms", () => {
    expect(decide(retryer({ maxAttempts: 5 }), Array(5).fill([http(500)]))).toEqual([
      ["retry", 486, 50],
      ["retry", 472, 100],
      ["retry", 458, 200],
      ["retry", 444, 400],
      ["EXHAUSTED", 444],
    ]);
  });

  test("verify max backoff time: capped at 200 ms", () => {
    expect(decide(retryer({ maxAttempts: 5, maxBackoff: 200 }), Array(5).fill([http(500)]))).toEqual([
      ["retry", 486, 50],
      ["retry", 472, 100],
      ["retry", 458, 200],
      ["retry", 444, 200],
      ["EXHAUSTED", 444],
    ]);
  });

  test("retry stops after retry quota exhaustion: 20 tokens, 6 left", () => {
    expect(decide(retryer({ maxAttempts: 5, tokens: 20 }), [[http(500)], [http(502)]])).toEqual([
      ["retry", 6, 50],
      ["BUDGET", 6],
    ]);
  });

  test("retry quota recovery after successful responses: 30, 16, 2, 16, 2, 16", () => {
    const responses: Response[] = [[http(500)], [http(502)], [http(200)], [http(500)], [http(200)]];
    expect(decide(retryer({ maxAttempts: 5, tokens: 30 }), responses)).toEqual([
      ["retry", 16, 50],
      ["retry", 2, 100],
      ["SUCCEEDED", 16],
      ["retry", 2, 50],
      ["SUCCEEDED", 16],
    ]);
  });

  test("throttling error token bucket drain and backoff duration: 495 after 1 s, then 500", () => {
    expect(decide(retryer({ cost: 5 }), [[THROTTLING], [http(200)]])).toEqual([
      ["retry", 495, 1000],
      ["SUCCEEDED", 500],
    ]);
  });

  test("dynamodb base backoff and increased retries: 25 ms base, 4 attempts", () => {
    expect(decide(retryer({ maxAttempts: 4, base: 25 }), Array(4).fill([http(500)]))).toEqual([
      ["retry", 486, 25],
      ["retry", 472, 50],
      ["retry", 458, 100],
      ["EXHAUSTED", 458],
    ]);
  });

  test("long-polling backoff when token bucket empty: ends BUDGET at once, no 50 ms wait (documented)", () => {
    // The SDK sleeps 50 ms before returning the error; the module has no long-polling mode.
    const api = retryer({ tokens: 0 });
    const h = api.begin(0, 0);
    api.poll(0);
    api.report(h, 1, http(500), 0, 0);
    expect([api.endReason(h), api.nextDue(0)]).toEqual([EndReason.BUDGET, 0xffffffff]);
  });

  test("long-polling backoff after throttling error when token bucket empty: ends BUDGET at once (documented)", () => {
    const api = retryer({ tokens: 0, cost: 5 });
    const h = api.begin(0, 0);
    api.poll(0);
    api.report(h, 1, THROTTLING, 0, 0);
    expect([api.endReason(h), api.nextDue(0)]).toEqual([EndReason.BUDGET, 0xffffffff]);
  });

  test("long-polling max attempts exceeded must not delay", () => {
    expect(decide(retryer({ maxAttempts: 2 }), [[http(500)], [http(500)]])).toEqual([
      ["retry", 486, 50],
      ["EXHAUSTED", 486],
    ]);
  });

  test("long-polling success must not delay", () => {
    expect(decide(retryer({ maxAttempts: 2 }), [[http(500)], [http(200)]])).toEqual([
      ["retry", 486, 50],
      ["SUCCEEDED", 500],
    ]);
  });

  test("long-polling non-retriable errors must not delay: a 404 ends", () => {
    expect(decide(retryer({ maxAttempts: 2 }), [[http(404)]])).toEqual([["PERMANENT", 500]]);
  });

  test("honor x-amz-retry-after header: 1500 ms", () => {
    expect(decide(retryer({}), [[http(500), 1500], [http(200)]])).toEqual([
      ["retry", 486, 1500],
      ["SUCCEEDED", 500],
    ]);
  });

  test("x-amz-retry-after minimum is exponential backoff duration: 0 waits 50 ms", () => {
    expect(decide(retryer({}), [[http(500), 0], [http(200)]])).toEqual([
      ["retry", 486, 50],
      ["SUCCEEDED", 500],
    ]);
  });

  test("x-amz-retry-after maximum is 5+exponential backoff duration: the module's bound is fixed (documented)", () => {
    // The SDK clamps 10 s to 50 ms + 5 s; the module to maxRetryAfter (0: maxDelay, 20 s).
    expect(decide(retryer({}), [[http(500), 10_000]])[0]).toEqual(["retry", 486, 10_000]);
    const api = configured(
      peerPolicy({ maxAttempts: 3, baseDelay: 50, maxDelay: 20_000, jitter: "NONE", maxRetryAfter: 5050 }),
    );
    expect(runOperation(api, [http(500)], 0, 10_000).waits).toEqual([5050]);
  });
});

describe("aws-sdk-go-v2 aws/ratelimit/token_rate_limit_test.go (TestTokenRateLimit)", () => {
  test("retrieve: 10 tokens; 5 taken and released, 5, 5, refused, 5 added, 5", () => {
    const api = configured(
      peerPolicy({ maxAttempts: 3 }),
      quota(10, { retryCost: 5000, successDeposit: 5000 }),
    );
    expect(runOperation(api, [Outcome.TRANSIENT, Outcome.SUCCESS]).endReason).toBe(EndReason.SUCCEEDED);
    expect(api.tokens()).toBe(10_000);
    runOperation(api, [Outcome.TRANSIENT]);
    runOperation(api, [Outcome.TRANSIENT]);
    expect(api.tokens()).toBe(0);
    expect(runOperation(api, [Outcome.TRANSIENT]).endReason).toBe(EndReason.BUDGET);
    runOperation(api, [Outcome.SUCCESS]); // AddTokens(5): a success without retry deposits 5
    expect(api.tokens()).toBe(5000);
    expect(runOperation(api, [Outcome.TRANSIENT]).waits).toHaveLength(1);
  });
});

describe("aws-sdk-go-v2 aws/retry/standard_test.go (TestStandard_MaxAttempts)", () => {
  test("defaults 3, custom 10: the attempts made, the first one counted", () => {
    for (const max of [3, 10]) {
      const run = runOperation(
        configured(peerPolicy({ maxAttempts: max })),
        Array(20).fill(Outcome.TRANSIENT),
      );
      expect([run.attempts, run.endReason]).toEqual([max, EndReason.EXHAUSTED]);
    }
  });
});

describe("aws-sdk-go-v2 aws/retry/jitter_backoff_test.go (TestExponentialJitterBackoff_AttemptDelay)", () => {
  // The legacy backoff waits random() * 2^attempt s: a 2 s base in the module's terms.
  const waits = (jitter: "FULL" | "NONE", failures: number, seed: bigint) =>
    runOperation(
      configured(
        peerPolicy({ maxAttempts: 0, baseDelay: 2000, maxDelay: 20_000, jitter }),
        undefined,
        create(seed),
      ),
      Array(failures).fill(Outcome.TRANSIENT),
    ).waits;

  test("min delay floor, min delay ceiling, attempt delay: random 0, ~1 and 0.5 are the bottom, top and middle of [0, 2^n s]", () => {
    const first: number[] = [];
    const second: number[] = [];
    for (let seed = 1n; seed <= 400n; seed++) {
      const [a, b] = waits("FULL", 2, seed);
      first.push(a);
      second.push(b);
    }
    expect(Math.min(...first)).toBeLessThanOrEqual(20); // random 0: 0
    expect(Math.max(...first)).toBeLessThanOrEqual(2000); // random 1 - 2^-53: 2 s
    expect(Math.max(...first)).toBeGreaterThanOrEqual(1980);
    const mean = second.reduce((s, w) => s + w, 0) / second.length;
    expect(Math.abs(mean - 2000)).toBeLessThan(200); // random 0.5 at attempt 2: 2 s
  });

  test("max delay: attempt 10 is capped at 20 s", () => {
    expect(waits("NONE", 10, 1n)[9]).toBe(20_000);
  });
});
