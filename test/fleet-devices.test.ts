// The devices' closed loop: the offered load the experiment describes, operations only
// while the run lasts, and every operation begun followed to its end.
import { expect, it } from "vitest";
import { experimentSettings } from "../host/fleet/settings.js";
import { runFleet } from "../host/fleet/simulator.js";
import { STRATEGIES } from "../host/fleet/strategies.js";

const settings = experimentSettings();
const record = runFleet(settings, STRATEGIES.C, 42);

it("offers about 100 requests/s from 200 devices before the fault", () => {
  // 2 s to 8 s: past the start, before the freeze at 8.5 s.
  let sent = 0;
  for (let b = 20; b < 80; b++) sent += record.firstSends.at(b) + record.retrySends.at(b);
  expect(sent / 6).toBeGreaterThan(85);
  expect(sent / 6).toBeLessThan(115);
});

it("starts in its steady state: no start-up wave in any second before the freeze", () => {
  for (let second = 0; second < 8; second++) {
    let sent = 0;
    for (let b = 10 * second; b < 10 * second + 10; b++)
      sent += record.firstSends.at(b) + record.retrySends.at(b);
    expect(sent, `second ${second}`).toBeGreaterThan(65);
    expect(sent, `second ${second}`).toBeLessThan(135);
  }
});

it("begins operations only before durationMs, and ends every one it begins", () => {
  expect(Math.max(...record.opStart)).toBeLessThan(settings.durationMs);
  const begun = record.opStart.length;
  // The first attempts sent are the operations begun: each begun operation sends one.
  let first = 0;
  for (let b = 0; b < record.firstSends.counts.length; b++) first += record.firstSends.at(b);
  expect(first).toBe(begun);
});
