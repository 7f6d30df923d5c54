// ended (docs/ABI.md, Operations): every operation that ends is handed out exactly once,
// whatever ended it, lowest slot first; the mark survives save and restore; slot().
import { describe, expect, test } from "vitest";
import {
  EndReason,
  Error as Err,
  OpFlag,
  Outcome,
  Result,
  State,
} from "../../host/library/src/generated/abi.js";
import { restoreImage, saveImage } from "../../host/library/src/image.js";
import { create, instantiate, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { tickAfter } from "../../host/library/src/ticks.js";
import { setPolicy } from "../helpers/policies.js";

const T = 0xffffff00;

/** Every handle ended() gives at `now`, until NONE. */
function drain(api: TickRetryApi, now: number): number[] {
  const out: number[] = [];
  for (let h = api.ended(now); h >= 0; h = api.ended(now)) out.push(h);
  return out;
}

function api(): TickRetryApi {
  const a = create(11n);
  setPolicy(a, 0, { maxAttempts: 2, attemptTimeout: 1000, baseDelay: 100, maxDelay: 100, deadline: 5000 });
  setPolicy(a, 1, { maxAttempts: 2, attemptTimeout: 1000, idempotent: false });
  return a;
}

describe("ended", () => {
  test("before init: NOT_INITIALIZED", () => {
    expect(instantiate().ended(T)).toBe(Err.NOT_INITIALIZED);
  });

  test("nothing ended: NONE, and live operations are never handed out", () => {
    const a = api();
    a.begin(0, T);
    a.poll(T);
    expect(drain(a, T)).toEqual([]);
  });

  test("each end is handed out once, whatever ended it", () => {
    const a = api();
    const byReport = a.begin(0, T);
    const byTimeout = a.begin(1, T); // not idempotent: a timeout ends it AMBIGUOUS
    const byCancel = a.begin(0, T);
    const byDeadline = a.begin(0, T);
    for (let h = a.poll(T); h >= 0; h = a.poll(T));
    a.report(byReport, 1, Outcome.PERMANENT, 0, T);
    a.cancel(byCancel, T);
    expect(drain(a, T)).toEqual([byReport, byCancel]);
    expect(drain(a, T)).toEqual([]);
    // begin's own advance times the attempt of byTimeout out
    const later = tickAfter(T, 1000);
    a.begin(0, later);
    expect(a.endReason(byTimeout)).toBe(EndReason.AMBIGUOUS);
    // byDeadline retried and is waiting; poll's advance past the deadline ends it
    a.report(byDeadline, 1, Outcome.TRANSIENT, 0, later);
    const past = tickAfter(T, 5000);
    a.nextDue(past);
    expect(a.endReason(byDeadline)).toBe(EndReason.DEADLINE);
    expect(drain(a, past)).toEqual([byTimeout, byDeadline]);
    for (const h of [byReport, byTimeout, byCancel, byDeadline]) {
      expect(a.opFlags(h) & OpFlag.HANDED_OUT).toBe(OpFlag.HANDED_OUT);
    }
  });

  test("ended applies what is due by its now first", () => {
    const a = api();
    const h = a.begin(1, T);
    a.poll(T);
    expect(a.ended(tickAfter(T, 999))).toBe(Result.NONE);
    expect(a.ended(tickAfter(T, 1000))).toBe(h);
  });

  test("release frees an operation whether or not it was handed out; released ones never are", () => {
    const a = api();
    const h = a.begin(0, T);
    a.cancel(h, T);
    expect(a.release(h)).toBe(Result.OK);
    expect(drain(a, T)).toEqual([]);
  });

  test("the mark is in the image: a restore never hands an end out twice nor loses one", () => {
    const a = api();
    const first = a.begin(0, T);
    const second = a.begin(0, T);
    a.cancel(first, T);
    a.cancel(second, T);
    expect(a.ended(T)).toBe(first);
    const image = saveImage(a, T) as Uint8Array;
    const b = instantiate();
    expect(restoreImage(b, image, 77)).toBe(Result.OK);
    expect(drain(b, 77)).toEqual([second]);
    expect(drain(a, T)).toEqual([second]);
  });
});

describe("slot", () => {
  test("the slot of a valid handle; BAD_HANDLE for one released, never issued, or before init", () => {
    const a = api();
    const hs = [a.begin(0, T), a.begin(0, T), a.begin(0, T)];
    expect(hs.map((h) => a.slot(h))).toEqual([0, 1, 2]);
    a.cancel(hs[1], T);
    a.release(hs[1]);
    expect(a.slot(hs[1])).toBe(Err.BAD_HANDLE);
    const reused = a.begin(0, T);
    expect(a.slot(reused)).toBe(1);
    expect(reused).not.toBe(hs[1]);
    expect(a.slot(0)).toBe(Err.BAD_HANDLE);
    expect(a.slot(-1)).toBe(Err.BAD_HANDLE);
    expect(instantiate().slot(hs[0])).toBe(Err.BAD_HANDLE);
    expect(a.state(hs[0])).toBe(State.WAITING);
  });
});
