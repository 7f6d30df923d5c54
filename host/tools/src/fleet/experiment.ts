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

export function runExperiment(
  settings: FleetSettings,
  strategies: Strategy[],
  seeds: number[],
  progress?: ExperimentProgress,
): ExperimentResult {
  const total = strategies.length * seeds.length;
  let done = 0;
  const results = strategies.map((strategy) => {
    let timeline: Timeline | undefined;
    const runs = seeds.map((seed) => {
      const record = runFleet(settings, strategy, seed, (share) => progress?.(done + share, total));
      progress?.(++done, total);
      if (timeline === undefined) {
        const buckets = Math.ceil(settings.durationMs / BUCKET_MS);
        timeline = { requests: [], retries: [], answersFailed: [] };
        for (let b = 0; b < buckets; b++) {
          timeline.requests.push(sendsAt(record, b));
          timeline.retries.push(record.retrySends.at(b));
          timeline.answersFailed.push(record.answersFailed.at(b));
        }
      }
      return summarize(strategy.name, record, settings);
    });
    return { strategy, runs, summary: aggregate(runs), timeline: timeline! };
  });
  return { settings, seeds, results };
}
