// Runs on worker threads give the single-threaded experiment exactly, in the same order,
// and the progress they report reaches every run; the workers, kept for the process, do so
// again for the next experiment and do not keep the process alive.
import { expect, test } from "vitest";
import { runExperiment } from "../../../../host/tools/src/fleet/experiment.js";
import { runExperimentParallel } from "../../../../host/tools/src/fleet/parallel.js";
import { experimentSettings } from "../../../../host/tools/src/fleet/settings.js";
import { STRATEGIES } from "../../../../host/tools/src/fleet/strategies.js";
import { tickretryOk } from "../../../helpers/cli.js";

const settings = { ...experimentSettings(30), durationMs: 12_000 };
const strategies = [STRATEGIES.A, STRATEGIES.C, STRATEGIES.D];
const seeds = [42, 7];

test("two worker threads give the rows, summaries and series of one thread", async () => {
  const seen: number[] = [];
  const parallel = await runExperimentParallel(settings, strategies, seeds, 2, (done, total) => {
    expect(total).toBe(6);
    seen.push(done);
  });
  expect(parallel).toEqual(runExperiment(settings, strategies, seeds));
  expect(JSON.stringify(parallel)).toBe(JSON.stringify(runExperiment(settings, strategies, seeds)));
  expect(Math.max(...seen)).toBe(6);
});

test("the kept workers give the same again, one experiment after another and side by side", async () => {
  const one = JSON.stringify(runExperiment(settings, strategies, seeds));
  for (let i = 0; i < 2; i++) {
    expect(JSON.stringify(await runExperimentParallel(settings, strategies, seeds, 2))).toBe(one);
  }
  const both = await Promise.all([1, 2].map(() => runExperimentParallel(settings, strategies, seeds, 3)));
  expect(both.map((e) => JSON.stringify(e))).toEqual([one, one]);
});

test("the CLI on two threads prints the one-thread JSON and exits", () => {
  // tickretryOk() throws, with both outputs, unless the command exits 0.
  const fleet = (threads: string) =>
    tickretryOk("fleet", "--devices", "30", "--seeds", "1,2", "--threads", threads, "--json");
  expect(fleet("2")).toBe(fleet("1"));
});
