// What the threads (pool.ts) can run: per kind of job, the function that runs one of its
// tasks. A job's input and tasks cross to a worker by structured clone, so they are plain
// data: a contention strategy goes by its name, since its host wait is a function.
import { runContention, type ContentionRun } from "../contention/simulator.js";
import { CONTENTION_STRATEGIES } from "../contention/strategies.js";
import { runOne, type RunResult } from "../fleet/experiment.js";
import type { FleetSettings } from "../fleet/settings.js";
import type { Strategy } from "../fleet/strategies.js";

/** One run of a fleet experiment; `series`: its row carries the per-100 ms series. */
export interface FleetTask {
  strategy: Strategy;
  seed: number;
  series: boolean;
}

/** One run of the contention experiment: a strategy (by name) at a client count. */
export interface ContentionTask {
  strategy: string;
  clients: number;
  run: number;
}

export const RUNNERS = {
  fleet: (settings: FleetSettings, t: FleetTask, share: (done: number) => void): RunResult =>
    runOne(settings, t.strategy, t.seed, t.series, share),
  contention: (seed: number, t: ContentionTask): ContentionRun =>
    runContention(CONTENTION_STRATEGIES[t.strategy], t.clients, seed, t.run),
};

export type Kind = keyof typeof RUNNERS;
type Runner<K extends Kind> = (typeof RUNNERS)[K];
/** What every task of a job of kind K shares (the fleet's settings, the contention seed). */
export type Input<K extends Kind> = Parameters<Runner<K>>[0];
export type Task<K extends Kind> = Parameters<Runner<K>>[1];
export type Output<K extends Kind> = ReturnType<Runner<K>>;

/** Runs task `t` of a job of kind `kind`, telling `share` how much of it is done (0..1). */
export function runTask<K extends Kind>(
  kind: K,
  input: Input<K>,
  t: Task<K>,
  share: (done: number) => void,
): Output<K> {
  const run = RUNNERS[kind] as (input: Input<K>, t: Task<K>, share: (done: number) => void) => Output<K>;
  return run(input, t, share);
}
