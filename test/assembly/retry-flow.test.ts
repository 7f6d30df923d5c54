// One operation through the scheduler, step by step, the way a main loop drives it.
import { describe, expect, test } from "vitest";
import {
  Counter,
  EndReason,
  Jitter,
  NextDue,
  Outcome,
  Result,
  State,
} from "../../host/library/src/generated/abi.js";
import { SimClock } from "../../host/library/src/clock.js";
import { create } from "../../host/library/src/tickretry.js";
import { tickAfter } from "../../host/library/src/ticks.js";
import { setPolicy } from "../helpers/policies.js";

describe("retry flow", () => {
  test("a failed first attempt and a later success", () => {
    const api = create(1n);
    setPolicy(api, 0, { jitter: Jitter.NONE });
    const clock = new SimClock(1000);
    const h = api.begin(0, clock.now);
    expect(api.poll(clock.now)).toBe(h);
    expect(api.attempt(h)).toBe(1);
    const id = api.operationId(h);
    clock.advance(120);
    expect(api.report(h, 1, Outcome.TRANSIENT, 0, clock.now)).toBe(Result.OK);
    expect(api.state(h)).toBe(State.WAITING);
    expect(api.nextAttemptAt(h)).toBe(tickAfter(clock.now, 1000));
    expect(api.nextDue(clock.now)).toBe(1000);
    // Nothing is due early: polls in between are harmless no-ops.
    clock.advance(999);
    expect(api.poll(clock.now)).toBe(Result.NONE);
    clock.advance(1);
    expect(api.poll(clock.now)).toBe(h);
    expect(api.attempt(h)).toBe(2);
    expect(api.operationId(h)).toBe(id);
    clock.advance(50);
    expect(api.report(h, 2, Outcome.SUCCESS, 0, clock.now)).toBe(Result.OK);
    expect(api.state(h)).toBe(State.DONE);
    expect(api.endReason(h)).toBe(EndReason.SUCCEEDED);
    expect(api.lastOutcome(h)).toBe(Outcome.SUCCESS);
    expect(api.nextDue(clock.now)).toBe(NextDue.IDLE);
    expect(api.counter(Counter.ENDED_SUCCEEDED)).toBe(1);
    expect(api.release(h)).toBe(Result.OK);
  });

  test("a stalled attempt is timed out by poll while the loop keeps running", () => {
    const api = create(1n);
    setPolicy(api, 0, { attemptTimeout: 3000, jitter: Jitter.NONE });
    const clock = new SimClock(50);
    const h = api.begin(0, clock.now);
    expect(api.poll(clock.now)).toBe(h);
    // The loop keeps passing every 10 ticks; the attempt never answers.
    let passes = 0;
    while (api.state(h) === State.IN_FLIGHT) {
      expect(api.poll(clock.now)).toBe(Result.NONE);
      clock.advance(10);
      passes++;
    }
    expect(passes).toBe(301); // the pass at tick 3050 times it out
    expect(api.lastOutcome(h)).toBe(Outcome.TIMEOUT);
    expect(api.counter(Counter.ATTEMPT_TIMEOUTS)).toBe(1);
    expect(api.state(h)).toBe(State.WAITING);
    expect(api.nextAttemptAt(h)).toBe(3050 + 1000);
  });

  test("a deadline that expires during backoff ends DEADLINE without waiting out the backoff", () => {
    const api = create(1n);
    // Retry 3 would wait 4000 ticks, but only 3000 of the deadline are left at that point.
    setPolicy(api, 0, { maxAttempts: 5, attemptTimeout: 500, deadline: 6500, jitter: Jitter.NONE });
    const clock = new SimClock(0);
    const h = api.begin(0, clock.now);
    const failAfter = (latency: number) => {
      expect(api.poll(clock.now)).toBe(h);
      clock.advance(latency);
      return api.report(h, api.attempt(h), Outcome.TRANSIENT, 0, clock.now);
    };
    expect(failAfter(100)).toBe(Result.OK); // t=100, wait 1000
    clock.advance(1000);
    expect(failAfter(100)).toBe(Result.OK); // t=1200, wait 2000
    clock.advance(2000);
    expect(failAfter(300)).toBe(Result.OK); // t=3500, wait 4000 >= 3000 left
    expect(api.state(h)).toBe(State.DONE);
    expect(api.endReason(h)).toBe(EndReason.DEADLINE);
    expect(clock.now).toBe(3500);
    expect(api.counter(Counter.RETRIES_SCHEDULED)).toBe(2);
  });

  test("a full fail, retry, give-up cycle across the 0xFFFFFFFF to 0 wrap", () => {
    const api = create(1n);
    setPolicy(api, 0, { maxAttempts: 3, attemptTimeout: 2000, baseDelay: 1500, jitter: Jitter.NONE });
    const clock = new SimClock(0xffff_fc00); // 1024 ticks before the wrap
    const h = api.begin(0, clock.now);
    const starts: number[] = [];
    while (api.state(h) !== State.DONE) {
      if (api.poll(clock.now) === h) {
        starts.push(clock.now);
        clock.advance(100);
        api.report(h, api.attempt(h), Outcome.TRANSIENT, 0, clock.now);
      }
      clock.advance(api.nextDue(clock.now) === NextDue.IDLE ? 0 : api.nextDue(clock.now));
    }
    expect(clock.wraps).toBe(1);
    expect(starts).toEqual([0xffff_fc00, tickAfter(0xffff_fc00, 1600), tickAfter(0xffff_fc00, 1600 + 3100)]);
    expect(starts[1]).toBeLessThan(starts[0]); // the second attempt started after the wrap
    expect(api.endReason(h)).toBe(EndReason.EXHAUSTED);
    expect(api.attempt(h)).toBe(3);
  });
});
