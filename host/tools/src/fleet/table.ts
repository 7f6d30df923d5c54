// The terminal table: one row per strategy; over several seeds each cell is the mean with
// the range across seeds.
import { markdownTable } from "../markdown.js";
import type { NumericKey } from "./metrics.js";
import type { ExperimentResult } from "./experiment.js";
import { arrivalsLabel } from "./settings.js";

const COLUMNS: { key: NumericKey; title: string; format: (v: number) => string }[] = [
  { key: "successRate", title: "success", format: (v) => `${(v * 100).toFixed(1)}%` },
  { key: "totalRequests", title: "requests", format: (v) => v.toFixed(0) },
  { key: "retriesSent", title: "retries", format: (v) => v.toFixed(0) },
  { key: "retriesDenied", title: "denied", format: (v) => v.toFixed(0) },
  { key: "tableFull", title: "table full", format: (v) => v.toFixed(0) },
  { key: "peak1s", title: "peak 1s", format: (v) => v.toFixed(0) },
  { key: "peak100ms", title: "peak 100ms", format: (v) => v.toFixed(0) },
  { key: "p95Ms", title: "p95 ms", format: (v) => v.toFixed(0) },
  { key: "p99Ms", title: "p99 ms", format: (v) => v.toFixed(0) },
  { key: "recoveryMs", title: "recovery ms", format: (v) => v.toFixed(0) },
];

/** With a power cut, after the others. */
const POWER_CUT_COLUMNS: typeof COLUMNS = [
  { key: "pendingAtCut", title: "pending at cut", format: (v) => v.toFixed(0) },
  { key: "pendingSuccessRate", title: "pending succeeded", format: (v) => `${(v * 100).toFixed(1)}%` },
  { key: "peak100msAfterBoot", title: "peak 100ms after boot", format: (v) => v.toFixed(0) },
];

/** The header and one row of cells per strategy, as text; `only`: just those figures. */
export function cells(e: ExperimentResult, only?: NumericKey[]): string[][] {
  const several = e.seeds.length > 1;
  const all = e.settings.powerCut ? [...COLUMNS, ...POWER_CUT_COLUMNS] : COLUMNS;
  const columns = only ? all.filter((c) => only.includes(c.key)) : all;
  const header = ["strategy", ...columns.map((c) => c.title)];
  const rows = e.results.map(({ strategy, summary }) => [
    `${strategy.name} ${strategy.description}`,
    ...columns.map(({ key, format }) =>
      several
        ? `${format(summary[key]!)} (${format(summary.min[key])}..${format(summary.max[key])})`
        : format(summary[key]!),
    ),
  ]);
  return [header, ...rows];
}

export function caption(e: ExperimentResult): string {
  const seeds = e.seeds.length > 1 ? `seeds ${e.seeds.join(",")}: mean (min..max)` : `seed ${e.seeds[0]}`;
  const cut = e.settings.powerCut;
  const power = cut ? `, power cut at ${cut.atMs / 1000} s for ${cut.outageMs / 1000} s` : "";
  return `${e.settings.devices} devices, ${arrivalsLabel(e.settings)}${power}, ${e.settings.durationMs / 1000} s, ${seeds}`;
}

export function formatTable(e: ExperimentResult): string {
  const rows = cells(e);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [caption(e), ...rows.map(line)].join("\n");
}

/** The same table in Markdown, for docs/fleet.md; `only`: just those figures. */
export function formatMarkdown(e: ExperimentResult, only?: NumericKey[]): string {
  const [header, ...rows] = cells(e, only);
  return `${caption(e)}:\n\n${markdownTable(header, rows, true)}`;
}
