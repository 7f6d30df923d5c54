// The contention experiment: every strategy at every client count, each the mean over R
// runs, as the article reports them. The runs are independent, so they may go to the
// threads of ../threads/pool.ts, which gives their results back in order: the rows are the
// single-threaded ones exactly.
import { availableParallelism } from "node:os";
import { runParallel } from "../threads/pool.js";
import type { ContentionTask } from "../threads/runners.js";
import { runContention, type ContentionRun } from "./simulator.js";
import { CONTENTION_STRATEGIES, TICKS_PER_MS, type ContentionStrategy } from "./strategies.js";

/** One strategy at one client count; the keys --json promises. */
export interface ContentionRow {
  strategy: string;
  clients: number;
  runs: number;
  /** Writes sent (the measure of work), mean over the runs. */
  calls: number;
  /** Time until the last client succeeded, in ms, mean over the runs. */
  completionMs: number;
}

/** Called after each run with the runs done so far and the total. */
export type ContentionProgress = (done: number, total: number) => void;

/** Every run's clients squared, summed, below which the default is one thread: a run costs
 * about 0.7 µs per client squared here, and a worker's start-up in a new process about 300
 * ms. Measured with the CLI as whole processes, two threads over one (two pairs each): 5
 * strategies x 50 clients x 40 runs (500,000) 0.93 and 1.00; x 100 runs (1,250,000) 0.86
 * and 1.05; 100 clients x 40 runs (2,000,000) 0.82 and 0.89; x 100 runs 0.72 and 0.72. */
export const SMALL_EXPERIMENT_WORK = 1_500_000;

/** Threads by default for `runs` runs of each strategy at each client count. */
export function defaultContentionThreads(strategies: number, clientCounts: number[], runs: number): number {
  const work = clientCounts.reduce((sum, n) => sum + n * n, 0) * runs * strategies;
  return work < SMALL_EXPERIMENT_WORK ? 1 : availableParallelism();
}

/** The experiment's runs, client count first, then strategy, then run: the rows' order. */
function tasksOf(strategies: ContentionStrategy[], clientCounts: number[], runs: number): ContentionTask[] {
  return clientCounts.flatMap((clients) =>
    strategies.flatMap((s) => Array.from({ length: runs }, (_, run) => ({ strategy: s.name, clients, run }))),
  );
}

/** The rows of the runs' results, given in the order of tasksOf. */
function rowsOf(tasks: ContentionTask[], results: ContentionRun[], runs: number): ContentionRow[] {
  const rows: ContentionRow[] = [];
  for (let k = 0; k < tasks.length; k += runs) {
    let calls = 0;
    let completionUs = 0;
    for (const r of results.slice(k, k + runs)) ((calls += r.calls), (completionUs += r.completionUs));
    // Whole µs: the tick.
    const completionMs = Math.round(completionUs / runs) / TICKS_PER_MS;
    rows.push({
      strategy: tasks[k].strategy,
      clients: tasks[k].clients,
      runs,
      calls: calls / runs,
      completionMs,
    });
  }
  return rows;
}

export function runContentionExperiment(
  strategies: ContentionStrategy[],
  clientCounts: number[],
  runs: number,
  seed: number,
  progress?: ContentionProgress,
): ContentionRow[] {
  const tasks = tasksOf(strategies, clientCounts, runs);
  const byName = new Map(strategies.map((s) => [s.name, s]));
  // Runs are numbered alike for every strategy and client count: common random numbers.
  const results = tasks.map((t, i) => {
    const r = runContention(byName.get(t.strategy)!, t.clients, seed, t.run);
    progress?.(i + 1, tasks.length);
    return r;
  });
  return rowsOf(tasks, results, runs);
}

/** The same rows, the runs on `threads` threads. */
export async function runContentionParallel(
  strategies: ContentionStrategy[],
  clientCounts: number[],
  runs: number,
  seed: number,
  threads: number,
  progress?: ContentionProgress,
): Promise<ContentionRow[]> {
  if (threads <= 1) return runContentionExperiment(strategies, clientCounts, runs, seed, progress);
  // A worker finds a strategy by its name.
  const unknown = strategies.find((s) => CONTENTION_STRATEGIES[s.name] !== s);
  if (unknown) throw new Error(`contention: strategy "${unknown.name}" is not one of CONTENTION_STRATEGIES`);
  const tasks = tasksOf(strategies, clientCounts, runs);
  return rowsOf(tasks, await runParallel("contention", seed, tasks, threads, progress), runs);
}
