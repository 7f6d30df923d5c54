// changes (docs/ABI.md, changes): moves on every change an image records, never on the
// passage of time alone, and a host that stores the image when it moved loses nothing.
import { describe, expect, test } from "vitest";
import { Outcome } from "../../host/library/src/generated/abi.js";
import { restoreImage, saveImage } from "../../host/library/src/image.js";
import { create, instantiate, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { tickAfter, ticksUntil } from "../../host/library/src/ticks.js";
import { setPolicy } from "../helpers/policies.js";

const T = 0xfffff800;

/** Whether `act` moved changes(). */
function moves(a: TickRetryApi, act: () => unknown): boolean {
  const before = a.changes();
  act();
  return a.changes() !== before;
}

function ready(): TickRetryApi {
  const a = create(3n);
  setPolicy(a, 0, { maxAttempts: 3, attemptTimeout: 1000, baseDelay: 500, maxDelay: 500 });
  return a;
}

describe("changes", () => {
  test("starts at 0, works before init, and init moves it", () => {
    const a = instantiate();
    expect(a.changes()).toBe(0);
    expect(moves(a, () => a.init(1, 2))).toBe(true);
  });

  test("moves on every durable change", () => {
    const a = ready();
    let h = 0;
    expect(moves(a, () => setPolicy(a, 1))).toBe(true);
    expect(moves(a, () => a.setBudget(100, 100, 0, 0, 0, 0, 0, 0, 0))).toBe(true);
    expect(moves(a, () => (h = a.begin(0, T)))).toBe(true);
    expect(moves(a, () => a.poll(T))).toBe(true);
    expect(moves(a, () => a.report(h, 1, Outcome.TRANSIENT, 0, T))).toBe(true);
    expect(moves(a, () => a.report(h, 1, Outcome.SUCCESS, 0, T))).toBe(true); // stale: counted
    const due = tickAfter(T, 500);
    expect(moves(a, () => a.poll(due))).toBe(true);
    expect(moves(a, () => a.nextDue(tickAfter(due, 1000)))).toBe(true); // the attempt times out
    expect(moves(a, () => a.cancel(h, tickAfter(due, 1000)))).toBe(true);
    expect(moves(a, () => a.ended(tickAfter(due, 1000)))).toBe(true);
    expect(moves(a, () => a.release(h))).toBe(true);
    const image = saveImage(a, tickAfter(due, 1000)) as Uint8Array;
    expect(moves(a, () => restoreImage(a, image, 5))).toBe(true);
  });

  test("does not move on time alone, queries, refused calls, save, or nothing to do", () => {
    const a = ready();
    const h = a.begin(0, T);
    a.poll(T);
    a.report(h, 1, Outcome.TRANSIENT, 0, T);
    const quiet = [
      () => a.poll(tickAfter(T, 100)),
      () => a.nextDue(tickAfter(T, 200)),
      () => a.nextDue(tickAfter(T, 600)), // the wait ran out: DUE, but time alone did that
      () => a.nextDue(tickAfter(T, 590)), // a small step back
      () => a.ended(tickAfter(T, 600)),
      () => a.state(h),
      () => a.counter(1),
      () => a.tokens(),
      () => a.release(h), // STILL_LIVE
      () => a.begin(7, T), // BAD_POLICY
      () => a.setPolicy(0, 0, 0, 0, 0, 0, 0, 0),
      () => a.save(tickAfter(T, 600)),
      () => a.restore(3, T, 0, 0), // refused
    ];
    for (const act of quiet) expect(moves(a, act)).toBe(false);
  });

  test("a host that stores the image only when changes moved restores what it would have saved", () => {
    const a = ready();
    let stored = saveImage(a, T) as Uint8Array;
    let storedAt = T;
    let written = a.changes();
    let writes = 0;
    const h = a.begin(0, T);
    for (let k = 0; k < 40; k++) {
      const now = tickAfter(T, k * 97);
      for (let p = a.poll(now); p >= 0; p = a.poll(now)) a.report(p, a.attempt(p), Outcome.TRANSIENT, 0, now);
      if (a.changes() !== written) {
        stored = saveImage(a, now) as Uint8Array;
        storedAt = now;
        written = a.changes();
        writes++;
      }
    }
    const end = tickAfter(T, 40 * 97);
    const restored = instantiate();
    expect(restoreImage(restored, stored, end, ticksUntil(storedAt, end))).toBe(0);
    expect(saveImage(restored, end)).toEqual(saveImage(a, end));
    expect(writes).toBeLessThan(40);
    expect(a.state(h)).toBe(restored.state(h));
  });
});
