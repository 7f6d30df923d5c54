// Polly v8's circuit breaker, from its own tests (App-vNext/Polly @ 173d6d1d):
// Polly/test/Polly.Core.Tests/CircuitBreaker/Controller/CircuitStateControllerTests.cs. The tests
// mock the circuit behaviour's "should break" answer; here breakAfter 1 breaks on the first
// failure (2 where it must not). Polly's default BreakDuration is 5 s: breakBase = breakCap
// = 5000, which the module EQUAL-jitters within [2500, 5000]. Polly's HalfOpen with its
// probe executing is the module's PROBING. Polly rejects an execution while the circuit is
// open or isolated (BrokenCircuitException, IsolatedCircuitException, with RetryAfter); the
// module holds it WAITING and says when the break ends (breakEnds). docs/peers.md, Polly.
import { describe, expect, test } from "vitest";
import { Breaker, OpFlag, Outcome, State } from "../../host/library/src/generated/abi.js";
import { create, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";
import { configured, peerPolicy } from "./peer-run.js";

const BREAK = 5000;
const controller = (breakAfter = 1, breakBase = BREAK, breakCap = BREAK, start = 0) => {
  const policy = peerPolicy({ maxAttempts: 0, baseDelay: 10, maxDelay: 10, breakAfter, breakBase, breakCap });
  const api = configured(policy, undefined, create(7n));
  api.poll(start); // the module's clock starts where the test's does
  return api;
};

/** OnActionPreExecute: an execution begun at `now`; its handle, started or held. */
function execute(api: TickRetryApi, now: number): number {
  const h = api.begin(0, now);
  api.poll(now);
  return h;
}
const started = (api: TickRetryApi, h: number) => api.state(h) === State.IN_FLIGHT;
const held = (api: TickRetryApi, h: number) => (api.opFlags(h) & OpFlag.HELD) === OpFlag.HELD;

/** An execution's outcome; Polly's call ends there (no retry), so a failed one is cancelled. */
function finish(api: TickRetryApi, h: number, outcome: number, now: number): void {
  api.report(h, 1, outcome, 0, now);
  if (api.state(h) !== State.DONE) api.cancel(h, now);
  api.release(h);
}

/** OpenCircuit: an execution at `now` fails; the breaker opens. */
const open = (api: TickRetryApi, now = 0) => finish(api, execute(api, now), Outcome.TRANSIENT, now);

/** TransitionToState(HalfOpen): opened at `now`, then an execution after the break: the probe. */
function halfOpen(api: TickRetryApi, now = 0): number {
  open(api, now);
  return execute(api, now + BREAK);
}

describe("Polly test/Polly.Core.Tests/CircuitBreaker/Controller/CircuitStateControllerTests.cs", () => {
  test("Ctor_EnsureDefaults: closed", () => {
    expect(controller().breakerState(0)).toBe(Breaker.CLOSED);
  });

  test("IsolateAsync_Ok: isolated; an execution is held, not rejected; closing lets it be the probe (documented)", () => {
    const api = controller();
    expect(api.holdBreaker(0, 1000)).toBe(0);
    expect(api.breakerState(0)).toBe(Breaker.ISOLATED);
    const h = execute(api, 1000); // Polly: IsolatedCircuitException, RetryAfter null
    expect([started(api, h), held(api, h), api.breakEnds(0)]).toEqual([false, true, 0]);
    expect(api.releaseBreaker(0, 1001)).toBe(0);
    expect(api.poll(1001)).toBe(h);
    api.report(h, 1, Outcome.SUCCESS, 0, 1002);
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
  });

  test("BreakAsync_Ok: a manual close after isolation is HALF_OPEN, not Closed, until a probe answers (documented)", () => {
    const api = controller();
    api.holdBreaker(0, 1000);
    api.releaseBreaker(0, 1000);
    expect(api.breakerState(0)).toBe(Breaker.HALF_OPEN); // Polly: Closed
    execute(api, 1000);
    expect(api.breakerState(0)).toBe(Breaker.PROBING);
  });

  test("OnActionPreExecute_CircuitOpenedByValue, _CircuitOpenedByException: held, with the break's end for RetryAfter (documented)", () => {
    const api = controller();
    open(api);
    const h = execute(api, 1); // Polly: BrokenCircuitException with RetryAfter
    expect([started(api, h), held(api, h)]).toEqual([false, true]);
    const retryAfter = ticksUntil(1, api.breakEnds(0));
    expect(retryAfter).toBeGreaterThanOrEqual(BREAK / 2 - 1);
    expect(retryAfter).toBeLessThanOrEqual(BREAK - 1);
  });

  test("HalfOpen_EnsureCorrectStateTransitionAfterExecution (true, false): success closes, failure opens", () => {
    for (const [outcome, after] of [
      [Outcome.SUCCESS, Breaker.CLOSED],
      [Outcome.TRANSIENT, Breaker.OPEN],
    ]) {
      const api = controller();
      const probe = halfOpen(api);
      expect(api.breakerState(0)).toBe(Breaker.PROBING);
      api.report(probe, 1, outcome, 0, BREAK);
      expect(api.breakerState(0)).toBe(after);
    }
  });

  test("OnActionPreExecute_HalfOpen: the second execution while half-open is held, not rejected (documented)", () => {
    const api = controller();
    const probe = halfOpen(api);
    const second = execute(api, BREAK);
    expect([started(api, probe), started(api, second), held(api, second)]).toEqual([true, false, true]);
    expect(api.breakerState(0)).toBe(Breaker.PROBING);
  });

  test("OnActionSuccess_EnsureCorrectBehavior: HalfOpen -> Closed, Isolated -> Isolated, Closed -> Closed", () => {
    const halfOpened = controller();
    halfOpened.report(halfOpen(halfOpened), 1, Outcome.SUCCESS, 0, BREAK);
    const isolated = controller();
    const inFlight = execute(isolated, 0);
    isolated.holdBreaker(0, 0);
    isolated.report(inFlight, 1, Outcome.SUCCESS, 0, 0);
    const closed = controller();
    closed.report(execute(closed, 0), 1, Outcome.SUCCESS, 0, 0);
    const states = [halfOpened, isolated, closed].map((api) => api.breakerState(0));
    expect(states).toEqual([Breaker.CLOSED, Breaker.ISOLATED, Breaker.CLOSED]);
  });

  test("OnActionFailureAsync_EnsureCorrectBehavior: HalfOpen, Closed (breaking, not), Open, Isolated", () => {
    const halfOpened = controller();
    halfOpened.report(halfOpen(halfOpened), 1, Outcome.TRANSIENT, 0, BREAK);
    const breaking = controller(1);
    open(breaking);
    const notBreaking = controller(2);
    open(notBreaking);
    // Open: an attempt begun before the breaker opened fails afterwards; the break stays.
    const opened = controller();
    const late = execute(opened, 0);
    open(opened);
    const ends = opened.breakEnds(0);
    opened.report(late, 1, Outcome.TRANSIENT, 0, 10);
    const isolated = controller();
    const inFlight = execute(isolated, 0);
    isolated.holdBreaker(0, 0);
    isolated.report(inFlight, 1, Outcome.TRANSIENT, 0, 0);
    const states = [halfOpened, breaking, notBreaking, opened, isolated].map((api) => api.breakerState(0));
    const { OPEN, CLOSED, ISOLATED } = Breaker;
    expect(states).toEqual([OPEN, OPEN, CLOSED, OPEN, ISOLATED]);
    expect(opened.breakEnds(0)).toBe(ends);
  });

  test("OnActionFailureAsync_EnsureBreakDurationGeneration: a 42 min break is drawn within [21, 42] min (documented)", () => {
    // Polly's BreakDurationGenerator returns the break; the module's breakBase and breakCap
    // set its ceiling and the break is EQUAL-jittered below it.
    const minutes42 = 42 * 60_000;
    const api = controller(1, minutes42, minutes42);
    open(api, 1000);
    const length = ticksUntil(1000, api.breakEnds(0));
    expect(length).toBeGreaterThanOrEqual(minutes42 / 2);
    expect(length).toBeLessThanOrEqual(minutes42);
  });

  test("BreakDurationGenerator_EnsureHalfOpenAttempts: 0, 1, 2, 3, 4, then 0, 1, 2 after a close", () => {
    // The module's own generator doubles the ceiling with each consecutive open (breakBase *
    // 2^halfOpenAttempts), so each break's range says which count it was drawn at.
    const api = controller(1, 1000, 1 << 30);
    const counts: number[] = [];
    let now = 0;
    const cycle = (outcome: number) => {
      finish(api, execute(api, now), outcome, now);
      if (api.breakerState(0) !== Breaker.OPEN) return;
      const length = ticksUntil(now, api.breakEnds(0));
      counts.push(Math.ceil(Math.log2(length / 1000)) + 0); // length in (500, 1000] * 2^count
      now = api.breakEnds(0);
    };
    for (let i = 0; i < 5; i++) cycle(Outcome.TRANSIENT);
    cycle(Outcome.SUCCESS); // closed
    for (let i = 0; i < 3; i++) cycle(Outcome.TRANSIENT);
    expect(counts).toEqual([0, 1, 2, 3, 4, 0, 1, 2]);
  });

  test("OnActionFailureAsync_EnsureBreakDurationNotOverflow (true, false): at the end of the clock the break wraps, whole (documented)", () => {
    // Polly clamps blockedTill to DateTimeOffset.MaxValue; ticks wrap instead, and the
    // signed-difference compare keeps the break its full length across the wrap.
    const start = 2 ** 32 - 10;
    const api = controller(1, BREAK, BREAK, start);
    open(api, start);
    const ends = api.breakEnds(0);
    expect(ends).toBeLessThan(BREAK); // wrapped
    const h = execute(api, (ends - 1) >>> 0);
    expect(started(api, h)).toBe(false);
    expect(api.poll(ends)).toBe(h);
  });

  test("Flow_Closed_HalfOpen_Closed", () => {
    const api = controller();
    api.report(halfOpen(api), 1, Outcome.SUCCESS, 0, BREAK);
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
  });

  test("Flow_Closed_HalfOpen_Open_HalfOpen_Closed: the execution 1 ms after the reopening is held until the break ends (documented)", () => {
    const api = controller();
    finish(api, halfOpen(api), Outcome.TRANSIENT, BREAK);
    expect(api.breakerState(0)).toBe(Breaker.OPEN);
    const h = execute(api, BREAK + 1); // Polly: rejected, RetryAfter = BreakDuration - 1 ms
    expect(held(api, h)).toBe(true);
    expect(ticksUntil(BREAK + 1, api.breakEnds(0))).toBeLessThanOrEqual(BREAK - 1);
    expect(api.poll(BREAK + 2 * BREAK)).toBe(h); // half-open: h is the probe
    api.report(h, 1, Outcome.SUCCESS, 0, 3 * BREAK);
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
  });
});
