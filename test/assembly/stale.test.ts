// Reports for an attempt that is no longer current change nothing and say so.
import { describe, expect, test } from "vitest";
import {
  Counter,
  Error as Err,
  Jitter,
  Outcome,
  Result,
  State,
} from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { inFlight, setPolicy } from "../helpers/policies.js";
import { expectNoEffect, type Scene } from "../helpers/twin.js";

describe("stale reports", () => {
  test("a late report after a timeout is stale and changes nothing", () => {
    const build = (): Scene => {
      const { api, h } = inFlight(11n, { attemptTimeout: 300, jitter: Jitter.FULL });
      api.poll(300); // attempt 1 times out; its retry waits
      return { api, handles: [h], now: 300 };
    };
    expect(build().api.state(build().handles[0])).toBe(State.WAITING);
    expectNoEffect(
      build,
      ({ api, handles }) => api.report(handles[0], 1, Outcome.SUCCESS, 0, 310),
      Err.STALE_REPORT,
      Counter.STALE_REPORTS,
    );
  });

  test("an answer that arrives at its attempt deadline is too late", () => {
    const { api, h } = inFlight(11n, { attemptTimeout: 300 });
    expect(api.report(h, 1, Outcome.SUCCESS, 0, 300)).toBe(Err.STALE_REPORT);
    expect(api.lastOutcome(h)).toBe(Outcome.TIMEOUT);
  });

  test("a duplicate report, a wrong attempt number and a report after the end are stale", () => {
    const { api, h } = inFlight(11n, { jitter: 1 });
    expect(api.report(h, 2, Outcome.TRANSIENT, 0, 5)).toBe(Err.STALE_REPORT);
    expect(api.report(h, 1, Outcome.TRANSIENT, 0, 5)).toBe(Result.OK);
    expect(api.report(h, 1, Outcome.TRANSIENT, 0, 5)).toBe(Err.STALE_REPORT);
    api.cancel(h, 6);
    expect(api.report(h, 1, Outcome.SUCCESS, 0, 7)).toBe(Err.STALE_REPORT);
    expect(api.counter(Counter.STALE_REPORTS)).toBe(3);
  });

  test("a released handle is refused even after its slot was reused", () => {
    const api = create(11n);
    setPolicy(api, 0);
    const old = api.begin(0, 0);
    api.poll(0);
    api.cancel(old, 1);
    expect(api.release(old)).toBe(Result.OK);
    const reused = api.begin(0, 2);
    expect(reused & 15).toBe(old & 15);
    api.poll(2);
    expect(api.report(old, 1, Outcome.SUCCESS, 0, 3)).toBe(Err.BAD_HANDLE);
    expect(api.state(reused)).toBe(State.IN_FLIGHT);
  });
});
