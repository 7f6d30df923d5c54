// Timeouts belong to the module: a freeze longer than the 2 s attempt timeout makes the
// modules time attempts out, and the answers that come later are reported and refused
// as stale.
import { expect, it } from "vitest";
import { experimentSettings } from "../../../../host/tools/src/fleet/settings.js";
import { runFleet } from "../../../../host/tools/src/fleet/simulator.js";
import { STRATEGIES } from "../../../../host/tools/src/fleet/strategies.js";

it("counts answers that arrive after the module timed their attempt out as stale", () => {
  const settings = experimentSettings(60);
  settings.dependency.script = [
    { at: 5_000, frozen: true },
    { at: 9_000, frozen: false },
  ];
  const record = runFleet(settings, STRATEGIES.B, 42);
  expect(record.attemptTimeouts).toBeGreaterThan(0);
  expect(record.staleResponses).toBeGreaterThan(0);
  // Every held request is answered at the resume, so each timed-out attempt gets exactly
  // one late answer.
  expect(record.staleResponses).toBe(record.attemptTimeouts);
  // Requests sent from 5 s to before 7 s were held at least 2 s: each one timed out. Those
  // sent later were answered in time (a request sent at exactly 7 s times out at 9 s too);
  // of those sent in the second before 5 s, only the ones still queued at 5 s may time out.
  const sentIn = (from: number, to: number) => {
    let n = 0;
    for (let b = from; b < to; b++) n += record.firstSends.at(b) + record.retrySends.at(b);
    return n;
  };
  expect(record.attemptTimeouts).toBeGreaterThanOrEqual(sentIn(50, 70));
  expect(record.attemptTimeouts).toBeLessThanOrEqual(sentIn(40, 71));
});

it("has no stale answers when every answer comes within the attempt timeout", () => {
  const record = runFleet(experimentSettings(60), STRATEGIES.B, 42);
  expect(record.attemptTimeouts).toBe(0);
  expect(record.staleResponses).toBe(0);
});
