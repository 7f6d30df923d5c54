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

test.prop([
  fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.constantFrom(...Object.values(EventKind))), {
    maxLength: 3000,
  }),
  fc.integer({ min: 1, max: 40 }),
])("with lanes, pops every event in the order the heap alone gives", (entries, popEvery) => {
  // Ties unique, as every simulator's are; pops between the pushes, as a run has them.
  const alone = new EventQueue();
  const laned = new EventQueue([EventKind.RESPONSE, EventKind.SERVICE_DONE]);
  const order = (q: EventQueue): string[] => {
    const popped: string[] = [];
    const take = () => popped.push(`${q.popped.time} ${q.popped.kind} ${q.popped.arg}`);
    entries.forEach(([time, kind], i) => {
      q.push(time, i, kind, i);
      if (i % popEvery === 0 && q.pop()) take();
    });
    while (q.pop()) take();
    return popped;
  };
  const expected = order(alone);
  expect(order(laned)).toEqual(expected);
  expect(expected.length).toBe(entries.length);
  expect(laned.size).toBe(0);
});
