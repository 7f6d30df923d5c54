// The contention experiment's runs on worker threads give the single-threaded rows exactly,
// also on workers kept from a fleet experiment; the CLI's --threads changes nothing of its
// output; a strategy a worker cannot find by name is refused before anything runs.
import { expect, test } from "vitest";
import {
  runContentionExperiment,
  runContentionParallel,
} from "../../../../host/tools/src/contention/experiment.js";
import { CONTENTION_STRATEGIES as S } from "../../../../host/tools/src/contention/strategies.js";
import { runExperiment } from "../../../../host/tools/src/fleet/experiment.js";
import { runExperimentParallel } from "../../../../host/tools/src/fleet/parallel.js";
import { experimentSettings } from "../../../../host/tools/src/fleet/settings.js";
import { STRATEGIES } from "../../../../host/tools/src/fleet/strategies.js";
import { tickretryOk } from "../../../helpers/cli.js";

const strategies = [S.none, S.full, S["full-base5"]];
const clients = [5, 30];
const RUNS = 6;

test("two threads give the rows of one, and the progress reaches every run", async () => {
  const seen: number[] = [];
  const two = await runContentionParallel(strategies, clients, RUNS, 3, 2, (done, total) => {
    expect(total).toBe(36);
    seen.push(done);
  });
  expect(JSON.stringify(two)).toBe(JSON.stringify(runContentionExperiment(strategies, clients, RUNS, 3)));
  expect(Math.max(...seen)).toBe(36);
});

test("workers kept from a fleet experiment run the contention runs too, and then a fleet's again", async () => {
  const fleet = { ...experimentSettings(20), durationMs: 6_000 };
  const fleetOne = JSON.stringify(runExperiment(fleet, [STRATEGIES.C], [1, 2, 3]));
  expect(JSON.stringify(await runExperimentParallel(fleet, [STRATEGIES.C], [1, 2, 3], 2))).toBe(fleetOne);
  const one = JSON.stringify(runContentionExperiment(strategies, clients, RUNS, 9));
  expect(JSON.stringify(await runContentionParallel(strategies, clients, RUNS, 9, 2))).toBe(one);
  expect(JSON.stringify(await runExperimentParallel(fleet, [STRATEGIES.C], [1, 2, 3], 2))).toBe(fleetOne);
});

test("a strategy that is not one of CONTENTION_STRATEGIES is refused by name", async () => {
  const own = { ...S.full, name: "mine" };
  await expect(runContentionParallel([S.none, own], [5], 2, 1, 2)).rejects.toThrow(
    'contention: strategy "mine" is not one of CONTENTION_STRATEGIES',
  );
});

test("the CLI on two threads prints the one-thread JSON and exits", () => {
  // tickretryOk() throws, with both outputs, unless the command exits 0.
  const contention = (threads: string) =>
    tickretryOk("contention", "--clients", "5,25", "--runs", "8", "--threads", threads, "--json");
  const two = contention("2");
  expect(two).toBe(contention("1"));
  expect(JSON.parse(two)).toHaveLength(10);
});
