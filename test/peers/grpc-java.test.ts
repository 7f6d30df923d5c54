// grpc-java's retry throttle and backoff, from its own tests (grpc/grpc-java):
// core/src/test/java/io/grpc/internal/RetriableStreamTest.java @ 5fda0c7c. Throttle(4, 0.8):
// every qualified failure takes 1 token, every success gives 0.8, up to 4; a retry needs
// more than 2. In the module: capacity 4000, failureCost 1000, successDeposit 800, threshold
// 2001 milli-tokens. "Another call in the channel" is another operation of the same
// instance. docs/peers.md, grpc-java, says where the two part and why.
import { describe, expect, test } from "vitest";
import { EndReason, Outcome } from "../../host/library/src/generated/abi.js";
import type { TickRetryApi } from "../../host/library/src/tickretry.js";
import { configured, peerPolicy, quota, runOperation } from "./peer-run.js";

const { SUCCESS, TRANSIENT, PERMANENT } = Outcome;
const THROTTLE = quota(4, {
  threshold: 2001,
  failureCost: 1000,
  successDeposit: 800,
  refundOnSuccess: false,
});
const throttled = () => configured(peerPolicy({ maxAttempts: 6, baseDelay: 100, maxDelay: 700 }), THROTTLE);

/** onQualifiedFailureThenCheckIsAboveThreshold: another call fails; was its retry allowed? */
const qualifiedFailure = (api: TickRetryApi) => runOperation(api, [TRANSIENT]).waits.length === 1;
/** onSuccess: another call succeeds. */
const success = (api: TickRetryApi) => void runOperation(api, [SUCCESS]);
/** isAboveThreshold: tokens above half the maximum. */
const aboveThreshold = (api: TickRetryApi) => api.tokens() > 2000;

describe("grpc-java core/src/test/java/io/grpc/internal/RetriableStreamTest.java", () => {
  test("throttle: 4 tokens, ratio 0.8; failures stop at 0, successes at 4", () => {
    const api = throttled();
    expect(aboveThreshold(api)).toBe(true);
    expect([1, 2, 3, 4, 5, 6].map(() => qualifiedFailure(api))).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(api.tokens()).toBe(0);
    const above = [1, 2, 3, 4, 5, 6].map(() => (success(api), aboveThreshold(api)));
    expect(above).toEqual([false, false, true, true, true, true]); // 0.8, 1.6, 2.4, 3.2, 4, 4
    expect(api.tokens()).toBe(4000);
    expect([qualifiedFailure(api), aboveThreshold(api)]).toEqual([true, true]); // 3
    expect([qualifiedFailure(api), aboveThreshold(api)]).toEqual([false, false]); // 2
  });

  test("throttledStream_FailWithRetriableStatusCode_WithoutPushback: 3, then this stream's failure makes 2: no retry", () => {
    const api = throttled();
    expect(qualifiedFailure(api)).toBe(true);
    expect(runOperation(api, [TRANSIENT]).endReason).toBe(EndReason.BUDGET);
    expect([aboveThreshold(api), api.tokens()]).toEqual([false, 2000]);
  });

  test("throttledStream_FailWithNonRetriableStatusCode_WithoutPushback: a non-retriable status takes no token", () => {
    const api = throttled();
    qualifiedFailure(api);
    expect(runOperation(api, [PERMANENT]).endReason).toBe(EndReason.PERMANENT);
    expect(api.tokens()).toBe(3000);
    expect(qualifiedFailure(api)).toBe(false);
  });

  test("throttledStream_FailWithRetriableStatusCode_WithRetriablePushback: a 123 ms pushback is throttled too", () => {
    const api = throttled();
    qualifiedFailure(api);
    expect(runOperation(api, [TRANSIENT], undefined, 123).endReason).toBe(EndReason.BUDGET);
    expect(api.tokens()).toBe(2000);
  });

  test("throttledStream_FailWithNonRetriableStatusCode_WithRetriablePushback: a pushback does not make it retriable (documented)", () => {
    // grpc-java retries a non-retriable status after a valid pushback (123 ms); the module
    // ends a PERMANENT answer at once, whatever Retry-After came with it.
    const api = throttled();
    qualifiedFailure(api);
    const run = runOperation(api, [PERMANENT, SUCCESS], undefined, 123);
    expect([run.attempts, run.endReason, api.tokens()]).toEqual([1, EndReason.PERMANENT, 3000]);
  });

  test("throttledStream_FailWithRetriableStatusCode_WithNonRetriablePushback: counted, not retried", () => {
    const api = throttled();
    qualifiedFailure(api);
    expect(runOperation(api, [TRANSIENT]).endReason).toBe(EndReason.BUDGET);
    expect(api.tokens()).toBe(2000);
  });

  test("throttledStream_FailWithNonRetriableStatusCode_WithNonRetriablePushback: a PERMANENT answer takes no token (documented)", () => {
    // grpc-java counts this non-retriable status against the throttle (2 left); the module's
    // PERMANENT is the request's own fault and never moves the budget.
    const api = throttled();
    qualifiedFailure(api);
    runOperation(api, [PERMANENT]);
    expect([api.tokens(), aboveThreshold(api)]).toEqual([3000, true]);
  });

  test("throttleStream_Succeed: 1 token, this stream's success makes 1.8, another 2.6", () => {
    const api = throttled();
    [1, 2, 3].forEach(() => qualifiedFailure(api));
    expect(runOperation(api, [SUCCESS]).endReason).toBe(EndReason.SUCCEEDED);
    expect([api.tokens(), aboveThreshold(api)]).toEqual([1800, false]);
    success(api);
    expect([api.tokens(), aboveThreshold(api)]).toEqual([2600, true]);
  });

  test("expBackoff_maxBackoff_maxRetryAttempts: 100, 200, 400, 700, 700 s ceilings, none a tick early; 6 attempts", () => {
    // RetriableStream's jitter is random() * the ceiling (FAKE_RANDOM 0.5 there): with jitter
    // NONE (random 1) the waits are the ceilings themselves.
    const api = configured(
      peerPolicy({ maxAttempts: 6, baseDelay: 100_000, maxDelay: 700_000, jitter: "NONE" }),
    );
    let now = 0;
    const h = api.begin(0, now);
    const waits = [];
    for (let attempt = 1; api.poll(now) === h; attempt++) {
      api.report(h, attempt, TRANSIENT, 0, now);
      if (api.endReason(h) !== EndReason.NONE) break;
      const due = api.nextAttemptAt(h);
      expect(api.poll(due - 1)).toBe(-1); // forwardTime(backoff - 1): still pending
      waits.push(due - now);
      now = due;
    }
    expect(waits).toEqual([100_000, 200_000, 400_000, 700_000, 700_000]);
    expect([api.attempt(h), api.endReason(h)]).toEqual([6, EndReason.EXHAUSTED]);
  });
});
