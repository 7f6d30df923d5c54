// The chaos run's tally on hand-made records: each kind of fate counted once, a replay
// (same key) never a duplicate, a reading under two keys a duplicate, and records that
// contradict each other reported as problems.
import { describe, expect, it } from "vitest";
import { tally } from "../../../../host/tools/src/chaos/tally.js";
import type { LogEvent } from "../../../../host/tools/src/device/readings-log.js";

const began = (reading: number, operationId: number): LogEvent => ({ event: "began", reading, operationId });
const ended = (reading: number, operationId: number, endReason: string): LogEvent => ({
  event: "ended",
  reading,
  operationId,
  endReason,
  attempts: 1,
});
const upload = (key: number, reading: number) => ({
  key: String(key),
  body: JSON.stringify({ reading, celsius: 20 }),
});

describe("the chaos tally", () => {
  it("counts delivered, ended with another reason, and lost", () => {
    const log = [
      began(1, 101),
      ended(1, 101, "SUCCEEDED"),
      began(2, 102),
      ended(2, 102, "EXHAUSTED"),
      began(3, 103), // never ended, never stored: lost
      began(4, 104),
      ended(4, 104, "BUDGET"), // ended, but an attempt ran: delivered
      { event: "dropped", reading: 5 } as LogEvent,
    ];
    const r = tally(log, [upload(101, 1), upload(104, 4)]);
    expect(r.tally).toEqual({ began: 4, delivered: 2, duplicates: 0, lost: 1, endedOther: 1 });
    expect(r.dropped).toBe(1);
    expect(r.problems).toEqual([]);
  });

  it("takes a line repeated after a restart once", () => {
    const log = [began(1, 101), began(1, 101), ended(1, 101, "DEADLINE"), ended(1, 101, "DEADLINE")];
    expect(tally(log, []).tally).toEqual({ began: 1, delivered: 0, duplicates: 0, lost: 0, endedOther: 1 });
  });

  it("calls a reading stored under two keys a duplicate, and says why", () => {
    const r = tally([began(1, 101), began(1, 201)], [upload(101, 1), upload(201, 1)]);
    expect(r.tally.duplicates).toBe(1);
    expect(r.problems).toContain("reading 1 logged under operations 101 and 201");
  });

  it("counts SUCCEEDED without a stored upload as lost", () => {
    expect(tally([began(1, 101), ended(1, 101, "SUCCEEDED")], []).tally.lost).toBe(1);
  });

  it("reports records that contradict each other", () => {
    const r = tally(
      [ended(9, 109, "EXHAUSTED"), began(2, 102), ended(2, 102, "EXHAUSTED"), ended(2, 102, "DEADLINE")],
      [upload(300, 3), { key: "7", body: "not json" }],
    );
    expect(r.problems).toEqual([
      "reading 9 ended (EXHAUSTED) but never began",
      "reading 2 ended twice: EXHAUSTED, then DEADLINE",
      "reading 3 stored under key 300 but never began",
      "key 7 stored a body without a reading: not json",
    ]);
    // What was stored counts as begun and delivered all the same.
    expect(r.tally.delivered).toBe(1);
  });
});
