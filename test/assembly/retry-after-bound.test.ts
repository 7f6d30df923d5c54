// Retry-After bounded by the policy (docs/ABI.md, Policies: maxRetryAfter): a larger one is
// clamped to maxRetryAfter (0: maxDelay) and counted, for requests and sessions alike.
import { describe, expect, test } from "vitest";
import { Counter, Jitter, Limit, Outcome, State } from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { RECONNECT, setPolicy } from "../helpers/policies.js";
import { policyArgs } from "../../host/library/src/policy.js";

/** One THROTTLED failure at tick 600 with `retryAfter`, under maxDelay 20,000 and no jitter
 * (the drawn wait is the throttle base, 1,000): the wait it led to, and the clamp count. */
function waitAfter(retryAfter: number, maxRetryAfter = 0): { wait: number; clamped: number } {
  const api = create(3n);
  setPolicy(api, 0, { throttleBaseDelay: 1000, maxDelay: 20_000, jitter: Jitter.NONE, maxRetryAfter });
  const h = api.begin(0, 500);
  api.poll(500);
  expect(api.report(h, 1, Outcome.THROTTLED, retryAfter, 600)).toBe(0);
  expect(api.state(h)).toBe(State.WAITING);
  return { wait: api.nextAttemptAt(h) - 600, clamped: api.counter(Counter.RETRY_AFTER_CLAMPED) };
}

describe("Retry-After bounded by maxRetryAfter", () => {
  test("maxRetryAfter 0 bounds it by maxDelay: up to 20,000 taken, above clamped and counted", () => {
    expect(waitAfter(20_000)).toEqual({ wait: 20_000, clamped: 0 });
    expect(waitAfter(20_001)).toEqual({ wait: 20_000, clamped: 1 });
    // The hostile answer: 2,000,000 s would be 23 days at 1 ms a tick.
    expect(waitAfter(2_000_000_000)).toEqual({ wait: 20_000, clamped: 1 });
  });

  test("a maxRetryAfter of its own, above or below maxDelay", () => {
    expect(waitAfter(30_000, 25_000)).toEqual({ wait: 25_000, clamped: 1 });
    expect(waitAfter(25_000, 25_000)).toEqual({ wait: 25_000, clamped: 0 });
    // Below the drawn wait, the clamped Retry-After raises nothing: the throttle base stays.
    expect(waitAfter(5000, 500)).toEqual({ wait: 1000, clamped: 1 });
  });

  test("MAX_SPAN leaves every Retry-After as the server sent it", () => {
    expect(waitAfter(Limit.MAX_SPAN, Limit.MAX_SPAN)).toEqual({ wait: Limit.MAX_SPAN, clamped: 0 });
  });

  test("a session's reconnect is bounded too (it has no deadline to do it)", () => {
    const api = create(5n);
    expect(api.setPolicy(0, ...policyArgs(RECONNECT))).toBe(0);
    const h = api.begin(0, 0);
    api.poll(0);
    api.report(h, 1, Outcome.THROTTLED, 2_000_000_000, 10);
    // RECONNECT's maxDelay is 8,000 ticks.
    expect(api.nextAttemptAt(h)).toBe(10 + 8000);
    expect(api.counter(Counter.RETRY_AFTER_CLAMPED)).toBe(1);
  });

  test("no count where no wait is drawn: a PERMANENT answer ends at once", () => {
    const api = create(3n);
    setPolicy(api, 0, { maxDelay: 20_000 });
    const h = api.begin(0, 0);
    api.poll(0);
    api.report(h, 1, Outcome.PERMANENT, 50_000, 10);
    expect(api.state(h)).toBe(State.DONE);
    expect(api.counter(Counter.RETRY_AFTER_CLAMPED)).toBe(0);
  });
});
