// The device-wide retry budget: denials end operations BUDGET and are counted; the
// fields express AWS standard mode, a 10% ratio budget and gRPC-style throttling.
import { describe, expect, test } from "vitest";
import { BudgetFlag, Counter, EndReason, Outcome, State } from "../../host/library/src/generated/abi.js";
import { create, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { setPolicy } from "../helpers/policies.js";

/** Runs one operation whose attempts meet `outcomes` in turn; returns its end reason. */
function runOne(api: TickRetryApi, outcomes: number[], start: number): number {
  let now = start;
  const h = api.begin(0, now);
  for (const outcome of outcomes) {
    if (api.poll(now) !== h) break;
    api.report(h, api.attempt(h), outcome, 0, now);
    if (api.state(h) === State.DONE) break;
    now = api.nextAttemptAt(h);
  }
  const reason = api.endReason(h);
  if (api.state(h) === State.DONE) api.release(h);
  return reason;
}

describe("retry budget", () => {
  test("a budget that runs dry denies retries and counts them", () => {
    const api = create(2n);
    setPolicy(api, 0, { maxAttempts: 3, jitter: 1 });
    // 3 tokens, each retry costs 1, nothing refills.
    expect(api.setBudget(3000, 3000, 1000, 1000, 0, 0, 0, 0, 0)).toBe(0);
    const reasons = Array.from({ length: 4 }, (_, i) =>
      runOne(api, [Outcome.TRANSIENT, Outcome.TRANSIENT, Outcome.TRANSIENT], i * 100_000),
    );
    // Operation 1 retries twice, operation 2 once and is then denied; the rest are denied at once.
    expect(reasons).toEqual([EndReason.EXHAUSTED, EndReason.BUDGET, EndReason.BUDGET, EndReason.BUDGET]);
    expect(api.counter(Counter.RETRIES_DENIED)).toBe(3);
    expect(api.counter(Counter.RETRIES_SCHEDULED)).toBe(3);
    expect(api.counter(Counter.ENDED_BUDGET)).toBe(3);
    expect(api.tokens()).toBe(0);
  });

  test("AWS standard mode: retries cost 5, timeouts 10, success refunds, +1 without retry", () => {
    const api = create(2n);
    setPolicy(api, 0, { maxAttempts: 3, jitter: 1 });
    api.setBudget(500_000, 500_000, 5000, 10_000, 0, 0, 0, 1000, BudgetFlag.REFUND_ON_SUCCESS);
    runOne(api, [Outcome.TRANSIENT, Outcome.TRANSIENT, Outcome.TRANSIENT], 0);
    expect(api.tokens()).toBe(490_000);
    runOne(api, [Outcome.TRANSIENT, Outcome.SUCCESS], 100_000);
    expect(api.tokens()).toBe(490_000); // withdrew 5, refunded 5
    runOne(api, [Outcome.SUCCESS], 200_000);
    expect(api.tokens()).toBe(491_000);
    // A timeout retry costs 10 tokens.
    const h = api.begin(0, 300_000);
    api.poll(300_000);
    api.poll(303_000);
    expect(api.lastOutcome(h)).toBe(Outcome.TIMEOUT);
    expect(api.tokens()).toBe(481_000);
  });

  test("a 10% ratio budget: first attempts deposit a tenth of what a retry withdraws", () => {
    const api = create(2n);
    setPolicy(api, 0, { maxAttempts: 2, jitter: 1 });
    api.setBudget(10_000, 0, 1000, 1000, 0, 0, 100, 0, 0);
    const reasons = Array.from({ length: 30 }, (_, i) =>
      runOne(api, [Outcome.TRANSIENT, Outcome.TRANSIENT], i * 10_000),
    );
    // Every tenth operation has saved up one retry.
    expect(reasons.filter((r) => r === EndReason.EXHAUSTED)).toHaveLength(3);
    expect(reasons.filter((r) => r === EndReason.BUDGET)).toHaveLength(27);
    expect(reasons[9]).toBe(EndReason.EXHAUSTED);
  });

  test("gRPC throttling: failures withdraw, successes deposit, retries only above the threshold", () => {
    const api = create(2n);
    setPolicy(api, 0, { maxAttempts: 2, jitter: 1 });
    // max_tokens 10, token_ratio 0.1: retry while tokens > 5.
    api.setBudget(10_000, 10_000, 0, 0, 5001, 1000, 0, 100, 0);
    const first = Array.from({ length: 6 }, (_, i) =>
      runOne(api, [Outcome.TRANSIENT, Outcome.SUCCESS], i * 10_000),
    );
    // Tokens 10 -> 9 -> ... each op: one failure (-1) and one success (+0.1).
    expect(first.slice(0, 5)).toEqual(Array(5).fill(EndReason.SUCCEEDED));
    expect(first[5]).toBe(EndReason.BUDGET);
    expect(api.tokens()).toBe(10_000 - 5 * 900 - 1000);
  });

  test("tokens stay within [0, capacity]", () => {
    const api = create(2n);
    setPolicy(api, 0, { maxAttempts: 2, jitter: 1 });
    api.setBudget(2000, 1500, 0, 0, 0, 5000, 700, 700, 0);
    for (let i = 0; i < 5; i++) {
      runOne(api, [Outcome.SUCCESS], i * 10_000);
      expect(api.tokens()).toBeLessThanOrEqual(2000);
    }
    expect(api.tokens()).toBe(2000);
    runOne(api, [Outcome.TRANSIENT, Outcome.TRANSIENT], 90_000);
    expect(api.tokens()).toBe(0);
  });
});
