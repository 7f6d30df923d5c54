// The experiment: every strategy over every seed, the figures per run, their summary per
// strategy, and the first seed's time series for the charts.
import { aggregate, BUCKET_MS, sendsAt, summarize, type AggregateRow, type Row } from "./metrics.js";
import type { FleetSettings } from "./settings.js";
import { runFleet } from "./simulator.js";
import type { Strategy } from "./strategies.js";

/** One strategy's 100 ms series over [0, durationMs) of the first seed. */
export interface Timeline {
  requests: number[];
  retries: number[];
  answersFailed: number[];
}

export interface StrategyResult {
  strategy: Strategy;
  /** One row per seed, in the order of the seeds. */
  runs: Row[];
  /** Means over the seeds, with min and max. */
  summary: AggregateRow;
  timeline: Timeline;
}

export interface ExperimentResult {
  settings: FleetSettings;
  seeds: number[];
  results: StrategyResult[];
}

/** Called after each run with the runs done so far and the share of the current run. */
export type ExperimentProgress = (runsDone: number, runsTotal: number) => void;

/** One run's figures, with its 100 ms series when `series` (the first seed's are charted). */
export interface RunResult {
  row: Row;
  timeline?: Timeline;
}

/** Runs one (strategy, seed) and keeps only what the experiment reports of it. */
export function runOne(
  settings: FleetSettings,
  strategy: Strategy,
  seed: number,
  series: boolean,
  progress?: (share: number) => void,
): RunResult {
  const record = runFleet(settings, strategy, seed, progress);
  const row = summarize(strategy.name, record, settings);
  if (!series) return { row };
  const buckets = Math.ceil(settings.durationMs / BUCKET_MS);
  const timeline: Timeline = { requests: [], retries: [], answersFailed: [] };
  for (let b = 0; b < buckets; b++) {
    timeline.requests.push(sendsAt(record, b));
    timeline.retries.push(record.retrySends.at(b));
    timeline.answersFailed.push(record.answersFailed.at(b));
  }
  return { row, timeline };
}

/** The experiment from its runs, in strategy-major order (strategies x seeds). */
export function assemble(
  settings: FleetSettings,
  strategies: Strategy[],
  seeds: number[],
  runs: RunResult[],
): ExperimentResult {
  const results = strategies.map((strategy, i) => {
    const mine = runs.slice(i * seeds.length, (i + 1) * seeds.length);
    const rows = mine.map((r) => r.row);
    return { strategy, runs: rows, summary: aggregate(rows), timeline: mine[0].timeline! };
  });
  return { settings, seeds, results };
}

export function runExperiment(
  settings: FleetSettings,
  strategies: Strategy[],
  seeds: number[],
  progress?: ExperimentProgress,
): ExperimentResult {
  const total = strategies.length * seeds.length;
  const runs: RunResult[] = [];
  for (const strategy of strategies) {
    seeds.forEach((seed, k) => {
      const done = runs.length;
      runs.push(runOne(settings, strategy, seed, k === 0, (share) => progress?.(done + share, total)));
      progress?.(runs.length, total);
    });
  }
  return assemble(settings, strategies, seeds, runs);
}
