// The event queue pops in (time, tie) order whatever the push order.
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { EventQueue } from "../../../../host/tools/src/event-queue.js";
import { EventKind } from "../../../../host/tools/src/fleet/events.js";

test.prop([
  fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5 })), { maxLength: 3000 }),
])("pops events sorted by time, then tie", (entries) => {
  const q = new EventQueue();
  entries.forEach(([time, tie], i) => q.push(time, tie, EventKind.WAKE, i));
  const popped: number[] = [];
  while (q.pop()) popped.push(q.popped.arg);
  const expected = entries
    .map(([time, tie], i) => ({ time, tie, i }))
    .sort((a, b) => a.time - b.time || a.tie - b.tie)
    .map((e) => [e.time, e.tie]);
  expect(popped.map((i) => entries[i])).toEqual(expected);
  expect(q.size).toBe(0);
});

/** The reference: each pop takes the least (time, tie) of what is left. */
function leastFirst(pending: { time: number; tie: number; arg: number }[]): number {
  let at = 0;
  pending.forEach((e, i) => {
    const best = pending[at];
    if (e.time < best.time || (e.time === best.time && e.tie < best.tie)) at = i;
  });
  return pending.splice(at, 1)[0].arg;
}

test.prop([
  fc.array(
    fc.tuple(
      // Ahead of the last pop mostly, whole or not, some past the calendar's window of 16,384 ms
      // (and a few behind the last pop, which only a test does).
      fc.oneof(fc.nat(60), fc.double({ min: 0, max: 60, noNaN: true }), fc.nat(40_000), fc.constant(-5)),
      fc.constantFrom(...Object.values(EventKind)),
    ),
    { maxLength: 3000 },
  ),
  fc.integer({ min: 1, max: 40 }),
])(
  "pops between pushes in (time, tie) order, through the calendar and the heap alike",
  (entries, popEvery) => {
    // Ties unique and growing, as the simulators' FIFO ties are; pops between the pushes.
    const q = new EventQueue();
    const pending: { time: number; tie: number; arg: number }[] = [];
    const popped: number[] = [];
    const expected: number[] = [];
    let clock = 0;
    const pop = () => {
      if (!q.pop()) return;
      popped.push(q.popped.arg);
      expected.push(leastFirst(pending));
      clock = Math.max(clock, q.popped.time);
    };
    entries.forEach(([ahead, kind], i) => {
      const time = clock + ahead;
      q.push(time, i, kind, i);
      pending.push({ time, tie: i, arg: i });
      if (i % popEvery === 0) pop();
    });
    while (q.size > 0) pop();
    expect(popped).toEqual(expected);
    expect(popped.length).toBe(entries.length);
  },
);

test("an event near the calendar window's end, in the same word of buckets as the clock, waits for a nearer one", () => {
  // The window is 16,384 ms: the bucket of 10 + 16,380 is bucket 6, below the clock's 10.
  const q = new EventQueue();
  q.push(10, 0, EventKind.WAKE, 0);
  expect(q.pop()).toBe(true); // the clock is at 10
  q.push(10 + 16_380, 1, EventKind.WAKE, 1);
  q.push(100, 2, EventKind.WAKE, 2);
  q.push(12, 3, EventKind.WAKE, 3);
  const order: number[] = [];
  while (q.pop()) order.push(q.popped.arg);
  expect(order).toEqual([3, 2, 1]);
});

test.prop([
  fc.array(fc.tuple(fc.nat(30), fc.constantFrom(...Object.values(EventKind))), {
    minLength: 1,
    maxLength: 500,
  }),
])("upcoming names the event the next pop takes, when nothing is pushed between", (entries) => {
  // Whole ms in the window and growing ties: every event is the calendar's.
  const q = new EventQueue();
  entries.forEach(([time, kind], i) => q.push(time, i, kind, i));
  const next = { kind: -1, arg: -1 };
  let named = 0;
  expect(q.pop()).toBe(true);
  while (q.size > 0) {
    const known = q.upcoming(next);
    expect(q.pop()).toBe(true);
    if (known) {
      expect([next.kind, next.arg]).toEqual([q.popped.kind, q.popped.arg]);
      named++;
    }
  }
  // With 30 ms for up to 500 events, most share their ms with the one before.
  if (entries.length > 100) expect(named).toBeGreaterThan(entries.length / 2);
});
