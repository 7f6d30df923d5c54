// The contention experiment: every strategy at every client count, each the mean over R
// runs, as the article reports them.
import { runContention } from "./simulator.js";
import { TICKS_PER_MS, type ContentionStrategy } from "./strategies.js";

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

export function runContentionExperiment(
  strategies: ContentionStrategy[],
  clientCounts: number[],
  runs: number,
  seed: number,
  progress?: ContentionProgress,
): ContentionRow[] {
  const total = strategies.length * clientCounts.length * runs;
  let done = 0;
  const rows: ContentionRow[] = [];
  for (const clients of clientCounts) {
    for (const strategy of strategies) {
      let calls = 0;
      let completionUs = 0;
      for (let run = 0; run < runs; run++) {
        // Runs are numbered alike for every strategy and client count: common random numbers.
        const r = runContention(strategy, clients, seed, run);
        calls += r.calls;
        completionUs += r.completionUs;
        progress?.(++done, total);
      }
      rows.push({
        strategy: strategy.name,
        clients,
        runs,
        calls: calls / runs,
        // Whole µs: the tick.
        completionMs: Math.round(completionUs / runs) / TICKS_PER_MS,
      });
    }
  }
  return rows;
}
