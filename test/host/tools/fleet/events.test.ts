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
