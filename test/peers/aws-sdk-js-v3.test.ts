// aws-sdk-js-v3's standard retry strategy (packages/util-retry), from its own tests
// (aws/aws-sdk-js-v3): src/defaultRetryToken.spec.ts @ 2577a22a,
// src/defaultRetryBackoffStrategy.spec.ts @ a68086d0 and src/StandardRetryStrategy.spec.ts
// @ 2577a22a; constants from src/constants.ts @ 8e4e1ea2 (100 ms base, 500 ms after
// throttling, 20 s cap, 500 tokens, a retry costs 5, one after a TRANSIENT error 10, a
// success without retry gives 1). Its TRANSIENT errors are timeouts and connection errors:
// here an attempt the module timed out, whose retry costs timeoutRetryCost. `Math.random`
// mocked to 1 is jitter NONE. docs/peers.md, aws-sdk-js-v3, says where the two part and why.
import { describe, expect, test } from "vitest";
import {
  Counter,
  EndReason,
  Error as AbiError,
  Outcome,
  State,
} from "../../host/library/src/generated/abi.js";
import { AWS_STANDARD_BUDGET, policyArgs, type PolicyFields } from "../../host/library/src/policy.js";
import { create, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";
import { configured, peerPolicy, runOperation } from "./peer-run.js";

const { SUCCESS, THROTTLED, PERMANENT } = Outcome;
const TIMEOUT = 1000;
const policy = (fields: Partial<PolicyFields> = {}) =>
  peerPolicy({
    maxAttempts: 0,
    attemptTimeout: TIMEOUT,
    baseDelay: 100,
    throttleBaseDelay: 500,
    maxDelay: 20_000,
    jitter: "NONE",
    ...fields,
  });
/** The SDK's retry quota: 500 tokens, costs 5 and 10, a success refunds or gives 1. */
const strategy = (tokens = 500, fields: Partial<PolicyFields> = {}) =>
  configured(policy(fields), { ...AWS_STANDARD_BUDGET, capacity: tokens * 1000, initial: tokens * 1000 });

/** One operation whose attempts all time out (the SDK's TRANSIENT errors): its waits. */
function timingOut(api: TickRetryApi, attempts: number): { waits: number[]; endReason: number } {
  let now = 0;
  const h = api.begin(0, now);
  const waits: number[] = [];
  for (let i = 0; i < attempts && api.poll(now) === h; i++) {
    now += TIMEOUT;
    api.poll(now); // the attempt times out here
    if (api.state(h) !== State.WAITING) break;
    waits.push(ticksUntil(now, api.nextAttemptAt(h)));
    now = api.nextAttemptAt(h);
  }
  const endReason = api.endReason(h);
  if (api.state(h) !== State.DONE) api.cancel(h, now);
  api.release(h);
  return { waits, endReason };
}

/** Retries granted to operations that each fail once with `fail`, until one is refused. */
function grantedUntilRefused(fail: () => { endReason: number }): number {
  let granted = 0;
  while (fail().endReason !== EndReason.BUDGET && granted < 1000) granted++;
  return granted;
}
const throttledOnce = (api: TickRetryApi) => () => runOperation(api, [THROTTLED]);
const timedOutOnce = (api: TickRetryApi) => () => timingOut(api, 1);

describe("aws-sdk-js-v3 packages/util-retry/src/defaultRetryToken.spec.ts", () => {
  test("custom initial retry tokens: hasRetryTokens returns false / retrieveRetryToken throws: 5 tokens", () => {
    expect(timingOut(strategy(5), 1).endReason).toBe(EndReason.BUDGET);
  });

  test("hasRetryTokens returns true if capacity is available: when it's transient error, when it's not", () => {
    expect(timingOut(strategy(), 1).waits).toHaveLength(1);
    expect(runOperation(strategy(), [THROTTLED]).waits).toHaveLength(1);
  });

  test("hasRetryTokens returns false if capacity is not available when it's transient error: 50 retries of 10", () => {
    const api = strategy();
    expect(grantedUntilRefused(timedOutOnce(api))).toBe(50);
  });

  test("hasRetryTokens returns false if capacity is not available when it's not transient error: 100 retries of 5", () => {
    const api = strategy();
    expect(grantedUntilRefused(throttledOnce(api))).toBe(100);
  });

  test("retrieveRetryToken returns retry tokens amount if available: 10 when transient, 5 when not", () => {
    const api = strategy();
    timingOut(api, 1);
    expect(api.tokens()).toBe(490_000);
    runOperation(api, [THROTTLED]);
    expect(api.tokens()).toBe(485_000);
  });

  test("getLastRetryCost is updated with successive errors: 10, then 5 (what a success refunds)", () => {
    const api = strategy();
    const h = api.begin(0, 0);
    api.poll(0);
    api.poll(TIMEOUT); // transient: 10
    const second = api.nextAttemptAt(h);
    api.poll(second);
    api.report(h, 2, THROTTLED, 0, second); // throttling: 5
    expect(api.tokens()).toBe(485_000);
    const third = api.nextAttemptAt(h);
    api.poll(third);
    api.report(h, 3, SUCCESS, 0, third);
    expect(api.tokens()).toBe(490_000); // the last cost, 5, given back
  });

  test("getRetryDelay: retry delay increases exponentially with attempt number for non-throttling error", () => {
    expect(timingOut(strategy(), 5).waits).toEqual([100, 200, 400, 800, 1600]);
  });

  test("getRetryDelay: retry delay increases exponentially with attempt number for throttling error", () => {
    expect(runOperation(strategy(), Array(4).fill(THROTTLED)).waits).toEqual([500, 1000, 2000, 4000]);
  });

  test("getRetryDelay caps retry delay at 20 seconds when value exceeded because of high delayBase: refused, not capped (documented)", () => {
    // The SDK caps a 100 s base at 20 s; setPolicy refuses baseDelay above maxDelay.
    const api = strategy();
    expect(api.setPolicy(0, ...policyArgs(policy({ baseDelay: 100_000 })))).toBe(AbiError.BAD_FIELD);
    expect(timingOut(api, 1).waits).toEqual([100]); // the policy before stays
    // A throttle base above maxDelay is clipped, as the SDK caps.
    expect(runOperation(strategy(500, { throttleBaseDelay: 100_000 }), [THROTTLED]).waits).toEqual([20_000]);
  });

  test("getRetryDelay caps retry delay at 20 seconds when value exceeded because of high attempts number", () => {
    expect(timingOut(strategy(), 16).waits[15]).toBe(20_000);
  });

  test("getRetryDelay uses retry-after hint: 5 minutes is clamped to maxRetryAfter (documented)", () => {
    // The SDK waits the full 5 minutes; the module bounds Retry-After by maxRetryAfter (0: maxDelay).
    const api = strategy();
    expect(runOperation(api, [THROTTLED], 0, 300_000).waits).toEqual([20_000]);
    expect(api.counter(Counter.RETRY_AFTER_CLAMPED)).toBe(1);
    const loose = strategy(500, { maxRetryAfter: 300_000 });
    expect(runOperation(loose, [THROTTLED], 0, 300_000).waits).toEqual([300_000]);
  });

  test("releaseRetryToken adds capacityReleaseAmount if passed: drained, a retried success gives 5 back", () => {
    const api = strategy();
    for (let i = 0; i < 99; i++) runOperation(api, [THROTTLED]);
    const t = 1_000_000; // after the others
    const last = api.begin(0, t);
    api.poll(t);
    api.report(last, 1, THROTTLED, 0, t);
    expect(api.tokens()).toBe(0);
    expect(runOperation(api, [THROTTLED], t).endReason).toBe(EndReason.BUDGET);
    const at = api.nextAttemptAt(last);
    api.poll(at);
    api.report(last, 2, SUCCESS, 0, at);
    expect(api.tokens()).toBe(5000);
    expect(grantedUntilRefused(throttledOnce(api))).toBe(1);
  });

  test("releaseRetryToken adds NO_RETRY_INCREMENT if capacityReleaseAmount not passed: five successes make a retry", () => {
    const api = strategy();
    grantedUntilRefused(throttledOnce(api));
    for (let i = 0; i < 5; i++) {
      expect(runOperation(api, [THROTTLED]).endReason).toBe(EndReason.BUDGET);
      runOperation(api, [SUCCESS]);
    }
    expect(runOperation(api, [THROTTLED]).waits).toHaveLength(1);
  });

  test("releaseRetryToken ensures availableCapacity is maxed at INITIAL_RETRY_TOKENS", () => {
    const api = strategy();
    for (let i = 0; i < 100; i++) runOperation(api, [SUCCESS]);
    expect(grantedUntilRefused(throttledOnce(api))).toBe(100);
  });
});

describe("aws-sdk-js-v3 packages/util-retry/src/defaultRetryBackoffStrategy.spec.ts", () => {
  test("uses 100 by default: (0..3) returns 100, 200, 400, 800", () => {
    expect(timingOut(strategy(), 4).waits).toEqual([100, 200, 400, 800]);
  });

  test("retry delay increases exponentially with attempt number: base 50", () => {
    expect(timingOut(strategy(500, { baseDelay: 50 }), 4).waits).toEqual([50, 100, 200, 400]);
  });

  test("caps retry delay at 20 seconds when value exceeded because of high delayBase: 20001 and 20002 refused (documented)", () => {
    const api = strategy();
    for (const baseDelay of [20_001, 20_002]) {
      expect(api.setPolicy(0, ...policyArgs(policy({ baseDelay })))).toBe(AbiError.BAD_FIELD);
    }
  });

  test("caps retry delay at 20 seconds when value exceeded because of high attempts number: base 1, attempts 15 and 16", () => {
    const waits = timingOut(strategy(500, { baseDelay: 1 }), 17).waits;
    expect([waits[14], waits[15], waits[16]]).toEqual([16_384, 20_000, 20_000]);
  });

  test("randomizes the retry delay value: within [0, 100], the ceiling itself included (documented)", () => {
    // floor(random() * 100) never reaches 100; the module's uniform(0, 100) does.
    const waits = [];
    for (let seed = 1n; seed <= 600n; seed++) {
      const api = configured(policy({ jitter: "FULL", throttleBaseDelay: 100 }), undefined, create(seed));
      waits.push(runOperation(api, [THROTTLED, THROTTLED]).waits[0]);
    }
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...waits)).toBe(100);
  });
});

describe("aws-sdk-js-v3 packages/util-retry/src/StandardRetryStrategy.spec.ts", () => {
  test("refreshRetryTokenForRetry throws when attempts exceeds maxAttempts: maxAttempts 1 retries nothing", () => {
    expect(timingOut(strategy(500, { maxAttempts: 1 }), 3)).toEqual({
      waits: [],
      endReason: EndReason.EXHAUSTED,
    });
  });

  test("refreshRetryTokenForRetry throws when no tokens are available", () => {
    expect(runOperation(strategy(0), [THROTTLED]).endReason).toBe(EndReason.BUDGET);
  });

  test("refreshRetryTokenForRetry throws when error is non-retryable: CLIENT_ERROR", () => {
    expect(runOperation(strategy(), [PERMANENT]).endReason).toBe(EndReason.PERMANENT);
  });

  test("recordSuccess releases tokens: the last retry's cost", () => {
    const api = strategy();
    expect(runOperation(api, [THROTTLED, SUCCESS]).endReason).toBe(EndReason.SUCCEEDED);
    expect(api.tokens()).toBe(500_000);
  });
});
