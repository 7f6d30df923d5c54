// Runs on worker threads give the single-threaded experiment exactly, in the same order,
// and the progress they report reaches every run.
import { expect, test } from "vitest";
import { runExperiment } from "../../../../host/tools/src/fleet/experiment.js";
import { runExperimentParallel } from "../../../../host/tools/src/fleet/parallel.js";
import { experimentSettings } from "../../../../host/tools/src/fleet/settings.js";
import { STRATEGIES } from "../../../../host/tools/src/fleet/strategies.js";

test("two worker threads give the rows, summaries and series of one thread", async () => {
  const settings = { ...experimentSettings(30), durationMs: 12_000 };
  const strategies = [STRATEGIES.A, STRATEGIES.C, STRATEGIES.D];
  const seeds = [42, 7];
  const seen: number[] = [];
  const parallel = await runExperimentParallel(settings, strategies, seeds, 2, (done, total) => {
    expect(total).toBe(6);
    seen.push(done);
  });
  expect(parallel).toEqual(runExperiment(settings, strategies, seeds));
  expect(JSON.stringify(parallel)).toBe(JSON.stringify(runExperiment(settings, strategies, seeds)));
  expect(Math.max(...seen)).toBe(6);
});
