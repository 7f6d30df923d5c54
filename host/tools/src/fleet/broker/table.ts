// The broker-restart rows as a Markdown table: one seed as they are, several as the mean
// with (min..max).
import { markdownTable } from "../../markdown.js";
import type { BrokerRow } from "./run.js";

const COLUMNS: [keyof BrokerRow, string][] = [
  ["peakConnects100ms", "peak connects / 100 ms"],
  ["reconnected99Ms", "99% reconnected after (ms)"],
  ["connectAttempts", "connect attempts"],
  ["overloadedMs", "broker overloaded (ms)"],
];

/** "never" stands for a run in which 99% were not connected again by its end. */
function cell(values: (number | null)[]): string {
  if (values.some((v) => v === null)) {
    const done = values.filter((v): v is number => v !== null);
    return done.length === 0 ? "never" : `never in ${values.length - done.length} of ${values.length}`;
  }
  const nums = values as number[];
  const mean = Math.round(nums.reduce((a, b) => a + b, 0) / nums.length);
  return nums.length === 1 ? `${mean}` : `${mean} (${Math.min(...nums)}..${Math.max(...nums)})`;
}

/** One row per strategy; `runs[s]` holds strategy s's rows, one per seed. Aligned, so
 * that the terminal shows it as a table. */
export function formatBrokerMarkdown(runs: BrokerRow[][], seeds: number[]): string {
  const [head, ...rows] = brokerCells(runs, seeds);
  return markdownTable(head, rows, true);
}

/** The header and one row of cells per strategy. */
export function brokerCells(runs: BrokerRow[][], seeds: number[]): string[][] {
  const head = [
    `strategy (seed${seeds.length > 1 ? "s" : ""} ${seeds.join(", ")})`,
    ...COLUMNS.map(([, t]) => t),
  ];
  const rows = runs.map((r) => [
    r[0].strategy,
    ...COLUMNS.map(([k]) => cell(r.map((x) => x[k] as number | null))),
  ]);
  return [head, ...rows];
}
