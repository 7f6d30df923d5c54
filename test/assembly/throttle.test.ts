// THROTTLED failures back off from the throttle base and honour Retry-After within the deadline.
import { describe, expect, test } from "vitest";
import { EndReason, Jitter, Outcome, State } from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { retryWaits, setPolicy } from "../helpers/policies.js";

function failOnce(outcome: number, retryAfter: number, deadline = 0) {
  const api = create(3n);
  setPolicy(api, 0, {
    baseDelay: 50,
    throttleBaseDelay: 1000,
    maxDelay: 20_000,
    deadline,
    jitter: Jitter.NONE,
  });
  const h = api.begin(0, 500);
  api.poll(500);
  api.report(h, 1, outcome, retryAfter, 600);
  return { api, h };
}

describe("throttling", () => {
  test("a transient failure waits the base delay, a throttled one the throttle base", () => {
    const transient = failOnce(Outcome.TRANSIENT, 0);
    expect(transient.api.nextAttemptAt(transient.h)).toBe(600 + 50);
    const throttled = failOnce(Outcome.THROTTLED, 0);
    expect(throttled.api.nextAttemptAt(throttled.h)).toBe(600 + 1000);
  });

  test("Retry-After raises the wait but never lowers it", () => {
    const longer = failOnce(Outcome.THROTTLED, 7000);
    expect(longer.api.nextAttemptAt(longer.h)).toBe(600 + 7000);
    const shorter = failOnce(Outcome.THROTTLED, 10);
    expect(shorter.api.nextAttemptAt(shorter.h)).toBe(600 + 1000);
    const onTransient = failOnce(Outcome.TRANSIENT, 2500);
    expect(onTransient.api.nextAttemptAt(onTransient.h)).toBe(600 + 2500);
  });

  test("a Retry-After reaching past the deadline ends DEADLINE at once", () => {
    // Begun at 500 with deadline 5000: 4900 ticks are left at 600.
    const within = failOnce(Outcome.THROTTLED, 4899, 5000);
    expect(within.api.state(within.h)).toBe(State.WAITING);
    expect(within.api.nextAttemptAt(within.h)).toBe(5499);
    const past = failOnce(Outcome.THROTTLED, 4900, 5000);
    expect(past.api.state(past.h)).toBe(State.DONE);
    expect(past.api.endReason(past.h)).toBe(EndReason.DEADLINE);
  });

  test("the throttle base doubles per retry and stays under the cap", () => {
    const api = create(3n);
    setPolicy(api, 0, {
      maxAttempts: 8,
      baseDelay: 50,
      throttleBaseDelay: 1000,
      maxDelay: 5000,
      jitter: Jitter.NONE,
    });
    expect(retryWaits(api, 0, Outcome.THROTTLED)).toEqual([1000, 2000, 4000, 5000, 5000, 5000, 5000]);
  });
});
