// The chaos run's tally on hand-made records: each kind of fate counted once, a replay
// (same key) never a duplicate, a reading under two keys a duplicate, and records that
// contradict each other reported as problems.
import { describe, expect, it } from "vitest";
import { failures, identityHolds, tally } from "../../../../host/tools/src/chaos/tally.js";
import type { LogEvent } from "../../../../host/tools/src/device/app/readings.js";

const taken = (...readings: number[]): LogEvent[] => readings.map((reading) => ({ event: "taken", reading }));
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
      ...taken(1, 2, 3, 4, 5, 6),
      began(1, 101),
      ended(1, 101, "SUCCEEDED"),
      began(2, 102),
      ended(2, 102, "EXHAUSTED"),
      began(3, 103), // never ended, never stored: lost
      began(4, 104),
      ended(4, 104, "BUDGET"), // ended, but an attempt ran: delivered
      { event: "dropped", reading: 5 } as LogEvent,
    ];
    // 6 is still queued in the last state file: pending.
    const r = tally(log, [upload(101, 1), upload(104, 4)], { pending: [], queued: [6] });
    expect(r.tally).toEqual({
      taken: 6,
      began: 4,
      delivered: 2,
      duplicates: 0,
      lost: 1,
      endedOther: 1,
      dropped: 1,
      pending: 1,
    });
    expect(r.problems).toEqual([]);
    expect(identityHolds(r.tally)).toBe(false); // the lost one
  });

  it("holds the identity when every reading taken is accounted for", () => {
    const log = [...taken(1, 2, 3), began(1, 101), { event: "dropped", reading: 2 } as LogEvent];
    const r = tally(log, [upload(101, 1)], { pending: [], queued: [3] });
    expect(r.tally).toMatchObject({ taken: 3, delivered: 1, dropped: 1, pending: 1, lost: 0 });
    expect(identityHolds(r.tally)).toBe(true);
  });

  it("counts a reading taken and then nowhere as lost", () => {
    const r = tally(taken(7), []);
    expect([r.tally.taken, r.tally.lost, identityHolds(r.tally)]).toEqual([1, 1, false]);
  });

  it("takes a line repeated after a restart once", () => {
    const log = [
      ...taken(1, 1),
      began(1, 101),
      began(1, 101),
      ended(1, 101, "DEADLINE"),
      ended(1, 101, "DEADLINE"),
    ];
    expect(tally(log, []).tally).toMatchObject({ taken: 1, began: 1, delivered: 0, lost: 0, endedOther: 1 });
  });

  it("calls a reading stored under two keys a duplicate, and says why", () => {
    const r = tally([...taken(1), began(1, 101), began(1, 201)], [upload(101, 1), upload(201, 1)]);
    expect(r.tally.duplicates).toBe(1);
    expect(r.problems).toContain("reading 1 logged under operations 101 and 201");
  });

  it("counts SUCCEEDED without a stored upload as lost", () => {
    expect(tally([...taken(1), began(1, 101), ended(1, 101, "SUCCEEDED")], []).tally.lost).toBe(1);
  });

  it("reports records that contradict each other", () => {
    const r = tally(
      [
        ...taken(2, 9),
        ended(9, 109, "EXHAUSTED"),
        began(2, 102),
        ended(2, 102, "EXHAUSTED"),
        ended(2, 102, "DEADLINE"),
      ],
      [upload(300, 3), { key: "7", body: "not json" }],
    );
    // (Readings 4 to 8 are missing too: counted lost, tested below.)
    expect(r.problems.filter((p) => !p.includes("missing from every record"))).toEqual([
      "reading 9 ended (EXHAUSTED) but never began",
      "reading 2 ended twice: EXHAUSTED, then DEADLINE",
      "reading 3 stored under key 300 but never began",
      "key 7 stored a body without a reading: not json",
    ]);
    // What was stored counts as begun and delivered all the same.
    expect(r.tally.delivered).toBe(1);
  });

  it("counts a number its epoch skipped as lost: taken, then missing from every record (issue 34, item 2)", () => {
    const log = [...taken(1, 2, 4), began(1, 101), began(2, 102), began(4, 104)];
    const r = tally(log, [upload(101, 1), upload(102, 2), upload(104, 4)]);
    expect(r.tally).toMatchObject({ taken: 4, delivered: 3, lost: 1 });
    expect(r.problems).toEqual([
      "reading 3 is missing from every record: its epoch numbered the readings around it",
    ]);
    // Another epoch's numbers are not this one's gap.
    const twoEpochs = tally([...taken(5, 2 ** 21 + 9)], [], { pending: [], queued: [5, 2 ** 21 + 9] });
    expect(twoEpochs.tally).toMatchObject({ taken: 2, pending: 2, lost: 0 });
  });

  it("fails a run that dropped readings unless --allow-drops allows as many (issue 34, item 2)", () => {
    const log = [...taken(1, 2, 3), began(1, 101), { event: "dropped", reading: 2 } as LogEvent];
    const r = tally(log, [upload(101, 1)], { pending: [], queued: [3] });
    expect(identityHolds(r.tally)).toBe(true);
    expect(failures(r)).toEqual(["1 reading(s) dropped from the full queue, more than --allow-drops 0"]);
    expect(failures(r, 1)).toEqual([]);
    // The device's log says what held the full queue at each drop: counted by it, and named.
    const held = (reading: number, why: string) => ({ event: "dropped", reading, while: why }) as LogEvent;
    const backingOff = tally(
      [...taken(1, 2, 3, 4), held(1, "broker session backing off"), held(2, "broker session backing off")],
      [],
      { pending: [], queued: [3, 4] },
    );
    expect(backingOff.dropsWhile).toEqual({ "broker session backing off": 2 });
    expect(failures(backingOff, 1)).toEqual([
      "2 reading(s) dropped from the full queue (2 while broker session backing off), more than --allow-drops 1",
    ]);
    expect(failures(tally(taken(7), []), 5)).toEqual([
      "taken is not delivered + endedOther + dropped + pending",
      "1 reading(s) lost",
    ]);
  });
});
