// The devices' loops: the offered load the experiment describes, operations only while
// the run lasts, every operation begun followed to its end; under open arrivals the
// timer keeps beginning operations through the freeze, and a begin the full table refuses
// is counted.
import { describe, expect, it } from "vitest";
import { experimentSettings } from "../../../../host/tools/src/fleet/settings.js";
import { runFleet } from "../../../../host/tools/src/fleet/simulator.js";
import { STRATEGIES } from "../../../../host/tools/src/fleet/strategies.js";
import type { RunRecord } from "../../../../host/tools/src/fleet/metrics.js";

/** Requests (first attempts only, with `firstOnly`) sent in 100 ms buckets [from, to). */
function sent(record: RunRecord, from: number, to: number, firstOnly = false): number {
  let n = 0;
  for (let b = from; b < to; b++) n += record.firstSends.at(b) + (firstOnly ? 0 : record.retrySends.at(b));
  return n;
}

describe.each(["open", "closed"] as const)("%s arrivals", (arrivals) => {
  const settings = { ...experimentSettings(), arrivals };
  const record = runFleet(settings, STRATEGIES.C, 42);

  it("offers about 100 requests/s from 200 devices before the fault", () => {
    // 2 s to 8 s: past the start, before the freeze at 8.5 s.
    expect(sent(record, 20, 80) / 6).toBeGreaterThan(85);
    expect(sent(record, 20, 80) / 6).toBeLessThan(115);
  });

  it("starts in its steady state: no start-up wave in any second before the freeze", () => {
    for (let second = 0; second < 8; second++) {
      const n = sent(record, 10 * second, 10 * second + 10);
      expect(n, `second ${second}`).toBeGreaterThan(65);
      expect(n, `second ${second}`).toBeLessThan(135);
    }
  });

  it("begins operations only before durationMs, and ends every one it begins", () => {
    expect(Math.max(...record.opStart)).toBeLessThan(settings.durationMs);
    // The first attempts sent are the operations begun: each begun operation sends one.
    expect(sent(record, 0, record.firstSends.counts.length, true)).toBe(record.opStart.length);
    expect(record.tableFull).toBe(0);
  });
});

describe("open arrivals through the freeze", () => {
  const open = runFleet(experimentSettings(), STRATEGIES.C, 42);
  const closed = runFleet({ ...experimentSettings(), arrivals: "closed" }, STRATEGIES.C, 42);

  it("keep beginning operations at the healthy rate while the dependency holds every request", () => {
    // 8.5 s to 10 s: the closed loop's devices wait for their held operation instead.
    const before = sent(open, 20, 80, true) / 6;
    const during = sent(open, 85, 100, true) / 1.5;
    expect(during).toBeGreaterThan(0.8 * before);
    expect(sent(closed, 85, 100, true) / 1.5).toBeLessThan(0.7 * before);
  });

  it("count every begin refused with TABLE_FULL: each timer tick is an operation or a refusal", () => {
    // A 10/s timer and a 4 s freeze: far more than 16 operations per device at once.
    const settings = { ...experimentSettings(20), interval: { kind: "fixed" as const, meanMs: 100 } };
    settings.dependency.script = [
      { at: 5_000, frozen: true },
      { at: 9_000, frozen: false },
    ];
    const record = runFleet(settings, STRATEGIES.B, 3);
    expect(record.tableFull).toBeGreaterThan(0);
    // A fixed 100 ms timer from a phase in [0, 100) ticks 300 times in 30 s.
    expect(record.opStart.length + record.tableFull).toBe(20 * 300);
  });
});
