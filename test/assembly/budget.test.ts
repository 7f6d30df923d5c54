// The device-wide retry budget: denials end operations BUDGET and are counted; the
// fields express AWS standard mode, a 10% ratio budget and gRPC-style throttling.
import { describe, expect, test } from "vitest";
import {
  BudgetFlag,
  Counter,
  EndReason,
  Error as Err,
  Outcome,
  State,
} from "../../host/library/src/generated/abi.js";
import { AWS_STANDARD_BUDGET, budgetArgs, budgetProblem, NO_BUDGET } from "../../host/library/src/policy.js";
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

/** Runs `count` operations `spacing` ticks apart, each meeting `outcomes`; their end reasons. */
function runMany(api: TickRetryApi, count: number, outcomes: number[], spacing: number): number[] {
  return Array.from({ length: count }, (_, i) => runOne(api, outcomes, i * spacing));
}

/** A fresh instance whose policy 0 makes up to `maxAttempts` attempts (jitter mode 1), under
 * the budget `budget` (setBudget's arguments), which it insists the module took. */
function budgeted(maxAttempts: number, ...budget: Parameters<TickRetryApi["setBudget"]>): TickRetryApi {
  const api = create(2n);
  setPolicy(api, 0, { maxAttempts, jitter: 1 });
  const code = api.setBudget(...budget);
  if (code !== 0) throw new Error(`setBudget refused: ${code}`);
  return api;
}

describe("retry budget", () => {
  test("a budget that runs dry denies retries and counts them", () => {
    // 3 tokens, each retry costs 1, nothing refills.
    const api = budgeted(3, 3000, 3000, 1000, 1000, 0, 0, 0, 0, 0);
    const reasons = runMany(api, 4, [Outcome.TRANSIENT, Outcome.TRANSIENT, Outcome.TRANSIENT], 100_000);
    // Operation 1 retries twice, operation 2 once and is then denied; the rest are denied at once.
    expect(reasons).toEqual([EndReason.EXHAUSTED, EndReason.BUDGET, EndReason.BUDGET, EndReason.BUDGET]);
    expect(api.counter(Counter.RETRIES_DENIED)).toBe(3);
    expect(api.counter(Counter.RETRIES_SCHEDULED)).toBe(3);
    expect(api.counter(Counter.ENDED_BUDGET)).toBe(3);
    expect(api.tokens()).toBe(0);
  });

  test("AWS standard mode: retries cost 5, timeouts 10, success refunds, +1 without retry", () => {
    const api = budgeted(3, 500_000, 500_000, 5000, 10_000, 0, 0, 0, 1000, BudgetFlag.REFUND_ON_SUCCESS);
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
    const api = budgeted(2, 10_000, 0, 1000, 1000, 0, 0, 100, 0, 0);
    const reasons = runMany(api, 30, [Outcome.TRANSIENT, Outcome.TRANSIENT], 10_000);
    // Every tenth operation has saved up one retry.
    expect(reasons.filter((r) => r === EndReason.EXHAUSTED)).toHaveLength(3);
    expect(reasons.filter((r) => r === EndReason.BUDGET)).toHaveLength(27);
    expect(reasons[9]).toBe(EndReason.EXHAUSTED);
  });

  test("gRPC throttling: failures withdraw, successes deposit, retries only above the threshold", () => {
    // max_tokens 10, token_ratio 0.1: retry while tokens > 5.
    const api = budgeted(2, 10_000, 10_000, 0, 0, 5001, 1000, 0, 100, 0);
    const first = runMany(api, 6, [Outcome.TRANSIENT, Outcome.SUCCESS], 10_000);
    // Tokens 10 -> 9 -> ... each op: one failure (-1) and one success (+0.1).
    expect(first.slice(0, 5)).toEqual(Array(5).fill(EndReason.SUCCEEDED));
    expect(first[5]).toBe(EndReason.BUDGET);
    expect(api.tokens()).toBe(10_000 - 5 * 900 - 1000);
  });

  test("tokens stay within [0, capacity]", () => {
    const api = budgeted(2, 2000, 1500, 0, 0, 0, 5000, 700, 700, 0);
    for (let i = 0; i < 5; i++) {
      runOne(api, [Outcome.SUCCESS], i * 10_000);
      expect(api.tokens()).toBeLessThanOrEqual(2000);
    }
    expect(api.tokens()).toBe(2000);
    runOne(api, [Outcome.TRANSIENT, Outcome.TRANSIENT], 90_000);
    expect(api.tokens()).toBe(0);
  });
});

describe("no budget is a mode of its own; capacity 0 allows no retry (AWS's quota)", () => {
  const failTwice = [Outcome.TRANSIENT, Outcome.TRANSIENT, Outcome.SUCCESS];

  test("after init the budget is OFF: every retry is allowed, tokens() is 0", () => {
    const api = create(2n);
    setPolicy(api, 0, { maxAttempts: 3, jitter: 1 });
    expect(runMany(api, 5, failTwice, 100_000)).toEqual(Array(5).fill(EndReason.SUCCEEDED));
    expect(api.tokens()).toBe(0);
    expect(api.counter(Counter.RETRIES_DENIED)).toBe(0);
  });

  test("capacity 0 without OFF denies every retry, even one that costs nothing", () => {
    for (const retryCost of [5000, 0]) {
      const api = budgeted(3, 0, 0, retryCost, retryCost, 0, 0, 0, 0, BudgetFlag.REFUND_ON_SUCCESS);
      expect(runOne(api, failTwice, 0)).toBe(EndReason.BUDGET);
      expect(api.counter(Counter.RETRIES_DENIED)).toBe(1);
    }
  });

  test("OFF set again after a budget: retries allowed again", () => {
    const api = budgeted(3, 0, 0, 5000, 10_000, 0, 0, 0, 0, 0);
    expect(runOne(api, failTwice, 0)).toBe(EndReason.BUDGET);
    expect(api.setBudget(...budgetArgs(NO_BUDGET))).toBe(0);
    expect(runOne(api, failTwice, 100_000)).toBe(EndReason.SUCCEEDED);
  });

  test("OFF with a budget's fields is refused BAD_FIELD and changes nothing; the host names it", () => {
    const api = budgeted(3, 10_000, 10_000, 1000, 1000, 0, 0, 0, 0, 0);
    const before = api.changes();
    expect(api.setBudget(10_000, 10_000, 1000, 1000, 0, 0, 0, 0, BudgetFlag.OFF)).toBe(Err.BAD_FIELD);
    expect(api.setBudget(0, 0, 0, 0, 0, 0, 0, 0, BudgetFlag.OFF | BudgetFlag.REFUND_ON_SUCCESS)).toBe(
      Err.BAD_FIELD,
    );
    expect(api.changes()).toBe(before);
    expect(api.tokens()).toBe(10_000);
    expect(budgetProblem({ ...AWS_STANDARD_BUDGET, off: true })).toBe(
      "off (no budget) with capacity, initial, retryCost, timeoutRetryCost, successDeposit, refundOnSuccess set;" +
        " allowed: off with every other field 0, or a budget without off",
    );
    expect(budgetProblem(NO_BUDGET)).toBeUndefined();
  });
});
