// cockatiel's circuit breaker, from its own tests (connor4312/cockatiel):
// src/CircuitBreakerPolicy.test.ts @ 17f5f3b9 (a ConsecutiveBreaker(2), a 1000 ms half-open
// delay) and src/breaker/ConsecutiveBreaker.test.ts @ 2a0dad2f. cockatiel rejects a call while
// the breaker is open or isolated (BrokenCircuitError, IsolatedCircuitError); the module keeps
// the operation WAITING, held, until the breaker lets it start (docs/peers.md, cockatiel).
import { describe, expect, test } from "vitest";
import { Breaker, OpFlag, Outcome, State } from "../../host/library/src/generated/abi.js";
import type { TickRetryApi } from "../../host/library/src/tickretry.js";
import { configured, peerPolicy } from "./peer-run.js";

const breaker = (breakAfter = 2) =>
  configured(
    peerPolicy({ maxAttempts: 0, baseDelay: 10, maxDelay: 10, breakAfter, breakBase: 1000, breakCap: 1000 }),
  );

/** One cockatiel call: an operation begun at `now` whose first attempt meets `outcome`
 * there; cockatiel's policy does not retry, so a failed one is cancelled. */
function call(api: TickRetryApi, now: number, outcome: number): void {
  const h = api.begin(0, now);
  if (api.poll(now) === h) api.report(h, 1, outcome, 0, now);
  if (api.state(h) !== State.DONE) api.cancel(h, now);
  api.release(h);
}

/** Two failed calls: the breaker opens (the openBreaker helper). */
function openBreaker(api: TickRetryApi): void {
  call(api, 0, Outcome.TRANSIENT);
  call(api, 0, Outcome.TRANSIENT);
}

describe("cockatiel src/CircuitBreakerPolicy.test.ts", () => {
  test("allows calls when open (closed): an attempt starts at once", () => {
    const api = breaker();
    const h = api.begin(0, 0);
    expect(api.poll(0)).toBe(h);
  });

  test("opens after failing calls; the third call is held, not rejected (documented)", () => {
    const api = breaker();
    call(api, 0, Outcome.TRANSIENT);
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
    call(api, 0, Outcome.TRANSIENT);
    expect(api.breakerState(0)).toBe(Breaker.OPEN);
    const third = api.begin(0, 1);
    expect(api.poll(1)).toBe(-1);
    expect(api.state(third)).toBe(State.WAITING);
    expect(api.opFlags(third) & OpFlag.HELD).toBe(OpFlag.HELD);
  });

  test("closes if the half open test succeeds", () => {
    const api = breaker();
    openBreaker(api);
    const probe = api.begin(0, 1000); // the break is EQUAL-jittered within [500, 1000]
    expect(api.poll(1000)).toBe(probe);
    expect(api.breakerState(0)).toBe(Breaker.PROBING);
    api.report(probe, 1, Outcome.SUCCESS, 0, 1001);
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
  });

  test("dedupes half-open tests: b starts only after a returned", () => {
    const api = breaker();
    openBreaker(api);
    const a = api.begin(0, 1000);
    const b = api.begin(0, 1000);
    expect(api.poll(1000)).toBe(a);
    expect(api.poll(1005)).toBe(-1);
    api.report(a, 1, Outcome.SUCCESS, 0, 1010);
    expect(api.poll(1010)).toBe(b);
  });

  test("stops deduped half-open tests if the circuit reopens: b waits again instead of failing (documented)", () => {
    const api = breaker();
    openBreaker(api);
    const a = api.begin(0, 1000);
    const b = api.begin(0, 1000);
    api.poll(1000);
    api.report(a, 1, Outcome.TRANSIENT, 0, 1010);
    expect(api.breakerState(0)).toBe(Breaker.OPEN);
    expect(api.state(b)).toBe(State.WAITING);
    expect(api.opFlags(b) & OpFlag.HELD).toBe(OpFlag.HELD);
  });

  test("re-opens if the half open fails", () => {
    const api = breaker();
    openBreaker(api);
    call(api, 1000, Outcome.TRANSIENT);
    expect(api.breakerState(0)).toBe(Breaker.OPEN);
  });

  test("handles isolation correctly: held until released; one release ends it, and a probe follows (documented)", () => {
    const api = breaker();
    expect(api.holdBreaker(0, 0)).toBe(0);
    expect(api.holdBreaker(0, 0)).toBe(0); // cockatiel counts handles; the module does not
    expect(api.breakerState(0)).toBe(Breaker.ISOLATED);
    const h = api.begin(0, 1);
    expect(api.poll(1)).toBe(-1); // cockatiel: IsolatedCircuitError
    expect(api.releaseBreaker(0, 2)).toBe(0);
    // cockatiel is Closed after its last handle; the module is HALF_OPEN and h is the probe.
    expect(api.breakerState(0)).toBe(Breaker.HALF_OPEN);
    expect(api.poll(2)).toBe(h);
    api.report(h, 1, Outcome.SUCCESS, 0, 3);
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
  });
});

describe("cockatiel src/breaker/ConsecutiveBreaker.test.ts", () => {
  test("works: the third consecutive failure opens; a success starts the count again", () => {
    const api = breaker(3);
    call(api, 0, Outcome.TRANSIENT);
    call(api, 0, Outcome.TRANSIENT);
    call(api, 0, Outcome.SUCCESS);
    call(api, 0, Outcome.TRANSIENT);
    call(api, 0, Outcome.TRANSIENT);
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
    call(api, 0, Outcome.TRANSIENT);
    expect(api.breakerState(0)).toBe(Breaker.OPEN);
  });
});
