// The module's clock: exact gaps up to 2^31 - 1, small steps back ignored, larger
// apparent steps back treated as a fault that expires every timer, stalls handled once.
import { describe, expect, test } from "vitest";
import {
  Counter,
  EndReason,
  Jitter,
  OpFlag,
  Outcome,
  Result,
  State,
} from "../../../host/library/src/generated/abi.js";
import { create } from "../../../host/library/src/tickretry.js";
import { tickAfter } from "../../../host/library/src/ticks.js";
import { inFlight, setPolicy } from "../../helpers/policies.js";

const MAX_SPAN = 2 ** 31 - 1;

describe("clock", () => {
  test("a gap of 2^31 - 1 ticks is exact", () => {
    const api = create(4n);
    setPolicy(api, 0, { jitter: Jitter.NONE, maxRetryAfter: MAX_SPAN }); // Retry-After unbounded
    const t = 0xfff0_0000;
    const h = api.begin(0, t);
    api.poll(t);
    api.report(h, 1, Outcome.THROTTLED, MAX_SPAN, t);
    expect(api.nextAttemptAt(h)).toBe(tickAfter(t, MAX_SPAN));
    expect(api.poll(tickAfter(t, MAX_SPAN - 1))).toBe(Result.NONE);
    expect(api.nextDue(tickAfter(t, MAX_SPAN - 1))).toBe(1);
    expect(api.poll(tickAfter(t, MAX_SPAN))).toBe(h);
  });

  test("one gap of 2^31 - 1 ticks straight from the report is exact too", () => {
    const api = create(4n);
    setPolicy(api, 0, { jitter: Jitter.NONE });
    const h = api.begin(0, 10);
    api.poll(10);
    api.report(h, 1, Outcome.THROTTLED, MAX_SPAN, 10);
    expect(api.poll(tickAfter(10, MAX_SPAN))).toBe(h);
    expect(api.counter(Counter.CLOCK_FAULTS)).toBe(0);
  });

  test("a small step back counts as no time passing and expires nothing", () => {
    const api = create(4n);
    setPolicy(api, 0, { attemptTimeout: 1000 });
    const h = api.begin(0, 5000);
    api.poll(5000);
    expect(api.nextDue(5999)).toBe(1);
    // A racy read 1000 ticks back: the clock stays at 5999.
    expect(api.nextDue(4999)).toBe(1);
    expect(api.poll(4999)).toBe(Result.NONE);
    expect(api.state(h)).toBe(State.IN_FLIGHT);
    expect(api.counter(Counter.CLOCK_FAULTS)).toBe(0);
    api.poll(6000);
    expect(api.lastOutcome(h)).toBe(Outcome.TIMEOUT);
  });

  test("a larger step back is a clock fault: every timer of every live operation expires", () => {
    const api = create(4n);
    setPolicy(api, 0, { attemptTimeout: 10_000, jitter: Jitter.NONE });
    setPolicy(api, 1, { attemptTimeout: 10_000, deadline: 50_000, jitter: Jitter.NONE });
    const inFlight = api.begin(0, 100_000);
    const waitingWithDeadline = api.begin(1, 100_000);
    const waiting = api.begin(0, 100_000);
    api.poll(100_000);
    api.poll(100_000);
    api.report(waitingWithDeadline, 1, Outcome.TRANSIENT, 0, 100_000);
    api.poll(100_000);
    api.report(waiting, 1, Outcome.TRANSIENT, 0, 100_000);
    // 1001 ticks back: the fault makes the waiting one due (poll starts it) ...
    expect(api.poll(98_999)).toBe(waiting);
    expect(api.counter(Counter.CLOCK_FAULTS)).toBe(1);
    expect(api.counter(Counter.ATTEMPT_TIMEOUTS)).toBe(1);
    expect(api.attempt(waiting)).toBe(2);
    // ... ends the one with a deadline, and times out the attempt in flight, whose retry
    // (wait 1000) counts from the new clock.
    expect(api.endReason(waitingWithDeadline)).toBe(EndReason.DEADLINE);
    expect(api.lastOutcome(inFlight)).toBe(Outcome.TIMEOUT);
    expect(api.opFlags(inFlight) & OpFlag.DUE).toBe(0);
    expect(api.nextAttemptAt(inFlight)).toBe(99_999);
  });

  test("with nothing live, a jump of any size is not a fault", () => {
    const api = create(4n);
    setPolicy(api, 0);
    expect(api.nextDue(1_000_000)).toBe(0xffff_ffff);
    expect(api.nextDue(5)).toBe(0xffff_ffff);
    const h = api.begin(0, 5);
    expect(api.poll(5)).toBe(h);
    expect(api.counter(Counter.CLOCK_FAULTS)).toBe(0);
  });

  test("after a stall an operation gets one attempt, not every missed one", () => {
    const api = create(4n);
    setPolicy(api, 0, {
      maxAttempts: 10,
      baseDelay: 100,
      maxDelay: 100,
      attemptTimeout: 50,
      jitter: Jitter.NONE,
    });
    const h = api.begin(0, 0);
    api.poll(0);
    // The loop stalls for an hour: the attempt times out once and one retry is due.
    const later = 3_600_000;
    expect(api.poll(later)).toBe(Result.NONE);
    expect(api.counter(Counter.ATTEMPT_TIMEOUTS)).toBe(1);
    expect(api.nextAttemptAt(h)).toBe(later + 100);
    expect(api.poll(later + 100)).toBe(h);
    expect(api.poll(later + 100)).toBe(Result.NONE);
    expect(api.attempt(h)).toBe(2);
    expect(api.counter(Counter.ATTEMPTS_STARTED)).toBe(2);
  });

  test("a stall past the deadline ends the operation DEADLINE at the next call", () => {
    const { api, h } = inFlight(4n, { deadline: 5000, attemptTimeout: 1000, jitter: Jitter.NONE });
    api.report(h, 1, Outcome.TRANSIENT, 0, 10);
    expect(api.poll(9000)).toBe(Result.NONE);
    expect(api.endReason(h)).toBe(EndReason.DEADLINE);
    expect(api.attempt(h)).toBe(1);
  });
});
