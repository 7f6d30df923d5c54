// Manual breaker control (docs/ABI.md, Circuit breaker, Manual control): holdBreaker keeps a
// policy's breaker ISOLATED until releaseBreaker, which lets a probe out as a break's end does.
import { describe, expect, test } from "vitest";
import {
  Breaker,
  Counter,
  Error as Err,
  NextDue,
  OpFlag,
  Outcome,
} from "../../host/library/src/generated/abi.js";
import { restoreImage, saveImage } from "../../host/library/src/image.js";
import { create, instantiate } from "../../host/library/src/tickretry.js";
import { setPolicy } from "../helpers/policies.js";

/** Policy 0 with a breaker after 2 failures, no jitter, and two operations begun at tick 0. */
function twoOperations() {
  const api = create(11n);
  setPolicy(api, 0, {
    maxAttempts: 0,
    baseDelay: 100,
    maxDelay: 100,
    breakAfter: 2,
    breakBase: 1000,
    breakCap: 1000,
  });
  const a = api.begin(0, 0);
  const b = api.begin(0, 0);
  return { api, a, b };
}

describe("holdBreaker and releaseBreaker", () => {
  test("a held breaker starts nothing, whatever the time, linkUp or a success", () => {
    const { api, a, b } = twoOperations();
    expect(api.poll(0)).toBe(a);
    expect(api.holdBreaker(0, 1)).toBe(0);
    expect(api.breakerState(0)).toBe(Breaker.ISOLATED);
    expect(api.poll(2)).toBe(-1); // b is held, not started
    expect(api.opFlags(b) & OpFlag.HELD).toBe(OpFlag.HELD);
    expect(api.linkUp(3)).toBe(0);
    // a's success (an attempt in flight when the hold began) does not close it.
    expect(api.report(a, 1, Outcome.SUCCESS, 0, 4)).toBe(0);
    expect(api.breakerState(0)).toBe(Breaker.ISOLATED);
    expect(api.poll(1_000_000)).toBe(-1);
    // No timer ends a hold: nothing but b's wait is pending, and b is held.
    expect(api.nextDue(1_000_000) >>> 0).toBe(NextDue.IDLE);
  });

  test("release: HALF_OPEN, the next attempt is the probe; its success closes", () => {
    const { api, a, b } = twoOperations();
    api.holdBreaker(0, 0);
    expect(api.releaseBreaker(0, 10)).toBe(0);
    expect(api.breakerState(0)).toBe(Breaker.HALF_OPEN);
    const probe = api.poll(10);
    expect(api.opFlags(probe) & OpFlag.PROBE).toBe(OpFlag.PROBE);
    expect(api.breakerState(0)).toBe(Breaker.PROBING);
    expect(api.counter(Counter.PROBES)).toBe(1);
    expect(api.poll(10)).toBe(-1); // the other waits for the probe
    api.report(probe, 1, Outcome.SUCCESS, 0, 20);
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
    expect(probe).toBe(a);
    expect(api.poll(20)).toBe(b); // what waited for the probe resumes (no spread: at once)
  });

  test("a failed probe after the release opens it, for a break like any other", () => {
    const { api } = twoOperations();
    api.holdBreaker(0, 0);
    api.releaseBreaker(0, 0);
    const probe = api.poll(0);
    api.report(probe, 1, Outcome.TRANSIENT, 0, 5);
    expect(api.breakerState(0)).toBe(Breaker.OPEN);
    expect(api.breakEnds(0)).toBeGreaterThanOrEqual(5 + 500);
  });

  test("a probe in flight when the hold begins is a probe no longer", () => {
    const { api } = twoOperations();
    const a = api.poll(0);
    api.report(a, 1, Outcome.TRANSIENT, 0, 0);
    const b = api.poll(0);
    api.report(b, 1, Outcome.TRANSIENT, 0, 0); // two failures: OPEN
    expect(api.breakerState(0)).toBe(Breaker.OPEN);
    const probe = api.poll(api.breakEnds(0));
    expect(api.opFlags(probe) & OpFlag.PROBE).toBe(OpFlag.PROBE);
    api.holdBreaker(0, api.breakEnds(0) + 1);
    expect(api.opFlags(probe) & OpFlag.PROBE).toBe(0);
    // Its failure does not open the breaker: the hold stays.
    api.report(probe, api.attempt(probe), Outcome.TRANSIENT, 0, 2000);
    expect(api.breakerState(0)).toBe(Breaker.ISOLATED);
  });

  test("refusals name what is wrong and change nothing", () => {
    const { api } = twoOperations();
    const before = api.changes();
    expect(api.releaseBreaker(0, 0)).toBe(Err.NOT_ISOLATED);
    expect(api.holdBreaker(1, 0)).toBe(Err.BAD_POLICY);
    expect(api.releaseBreaker(8, 0)).toBe(Err.BAD_POLICY);
    expect(api.changes()).toBe(before);
    expect(instantiate().holdBreaker(0, 0)).toBe(Err.NOT_INITIALIZED);
  });

  test("setPolicy ends a hold; a saved hold restores held", () => {
    const { api } = twoOperations();
    api.holdBreaker(0, 0);
    const image = saveImage(api, 5) as Uint8Array;
    const fresh = instantiate();
    expect(restoreImage(fresh, image, 5)).toBe(0);
    expect(fresh.breakerState(0)).toBe(Breaker.ISOLATED);
    expect(fresh.poll(5)).toBe(-1);
    setPolicy(api, 0, {});
    expect(api.breakerState(0)).toBe(Breaker.CLOSED);
    expect(api.poll(5)).toBeGreaterThanOrEqual(0);
  });
});
