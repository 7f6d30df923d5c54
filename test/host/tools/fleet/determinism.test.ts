// A run is a pure function of its settings, strategy and seed: the same seed gives the
// same figures and series; a different seed, different ones. The host's clock offsets
// change nothing, because the module is wrap invariant and the host compares ticks only
// through differences.
import { describe, expect, it } from "vitest";
import { runExperiment } from "../../../../host/tools/src/fleet/experiment.js";
import { experimentSettings, type FleetSettings } from "../../../../host/tools/src/fleet/settings.js";
import { runFleet } from "../../../../host/tools/src/fleet/simulator.js";
import { STRATEGIES } from "../../../../host/tools/src/fleet/strategies.js";

const settings = (change: Partial<FleetSettings> = {}) => ({ ...experimentSettings(60), ...change });
const strategies = [STRATEGIES.A, STRATEGIES.C, STRATEGIES.D];

describe("fleet determinism", () => {
  it("repeats a run exactly for the same seed", () => {
    const first = runExperiment(settings(), strategies, [7]);
    const again = runExperiment(settings(), strategies, [7]);
    expect(again).toEqual(first);
  });

  it("gives different runs for different seeds", () => {
    const [a, b] = [7, 8].map((seed) => runExperiment(settings(), [STRATEGIES.C], [seed]).results[0]);
    expect(a.timeline.requests).not.toEqual(b.timeline.requests);
  });

  it("is as deterministic with seeded random tie-breaks", () => {
    const random = settings({ ties: "random" });
    expect(runExperiment(random, strategies, [3])).toEqual(runExperiment(random, strategies, [3]));
  });

  it("makes the same decisions whatever the devices' clocks start at, across the wrap", () => {
    const rows = (["zero", "wrap", "random"] as const).map((clocks) =>
      runExperiment(settings({ clocks }), strategies, [5]).results.map((r) => r.summary),
    );
    expect(rows[1]).toEqual(rows[0]);
    expect(rows[2]).toEqual(rows[0]);
  });

  it.each(["A", "B", "C", "D"])("sends exactly the attempts the modules started (%s)", (name) => {
    const record = runFleet(settings(), STRATEGIES[name], 11);
    let sends = 0;
    for (let b = 0; b < record.firstSends.counts.length; b++) sends += record.firstSends.at(b);
    for (let b = 0; b < record.retrySends.counts.length; b++) sends += record.retrySends.at(b);
    expect(sends).toBe(record.attemptsStarted);
    expect(sends).toBeGreaterThanOrEqual(record.opStart.length);
    expect(sends).toBeGreaterThan(0);
  });
});
