// A fleet experiment's runs (strategies x seeds) on the threads of ../threads/pool.ts, put
// back in strategy-major order: the result is the single-threaded one exactly
// (test/host/tools/fleet/parallel.test.ts).
import { availableParallelism } from "node:os";
import { runParallel } from "../threads/pool.js";
import type { FleetTask } from "../threads/runners.js";
import { assemble, runExperiment, type ExperimentProgress, type ExperimentResult } from "./experiment.js";
import type { FleetSettings } from "./settings.js";
import type { Strategy } from "./strategies.js";

/** Device-seconds of a table below which the default is one thread: there the start-up
 * of a process's first workers (loading, compiling, their JIT warming up beside this
 * thread) costs more than they save, and a CLI run has only that first table. Measured
 * with the CLI as whole processes, 5 seeds x 4 strategies of 30 s, two threads over one
 * (median of 5 or 6 interleaved pairs): 200 devices (120,000 device-seconds) 1.20, 500
 * devices 1.05, 1,000 devices 0.91, 2,000 devices 0.72. */
export const SMALL_TABLE_DEVICE_SECONDS = 500_000;

/** Threads by default: one per core, or one for a table of fewer device-seconds than
 * SMALL_TABLE_DEVICE_SECONDS. */
export function defaultThreads(deviceSeconds = Infinity): number {
  return deviceSeconds < SMALL_TABLE_DEVICE_SECONDS ? 1 : availableParallelism();
}

export async function runExperimentParallel(
  settings: FleetSettings,
  strategies: Strategy[],
  seeds: number[],
  threads: number,
  progress?: ExperimentProgress,
): Promise<ExperimentResult> {
  const tasks: FleetTask[] = strategies.flatMap((strategy) =>
    seeds.map((seed, k) => ({ strategy, seed, series: k === 0 })),
  );
  if (threads <= 1 || tasks.length <= 1) return runExperiment(settings, strategies, seeds, progress);
  const runs = await runParallel("fleet", settings, tasks, threads, progress);
  return assemble(settings, strategies, seeds, runs);
}
