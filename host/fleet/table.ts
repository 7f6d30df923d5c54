// The terminal table: one row per strategy; over several seeds each cell is the mean with
// the range across seeds.
import type { NumericKey } from "./metrics.js";
import type { ExperimentResult } from "./experiment.js";

const COLUMNS: { key: NumericKey; title: string; format: (v: number) => string }[] = [
  { key: "successRate", title: "success", format: (v) => `${(v * 100).toFixed(1)}%` },
  { key: "totalRequests", title: "requests", format: (v) => v.toFixed(0) },
  { key: "retriesSent", title: "retries", format: (v) => v.toFixed(0) },
  { key: "retriesDenied", title: "denied", format: (v) => v.toFixed(0) },
  { key: "peak1s", title: "peak 1s", format: (v) => v.toFixed(0) },
  { key: "peak100ms", title: "peak 100ms", format: (v) => v.toFixed(0) },
  { key: "p95Ms", title: "p95 ms", format: (v) => v.toFixed(0) },
  { key: "p99Ms", title: "p99 ms", format: (v) => v.toFixed(0) },
  { key: "recoveryMs", title: "recovery ms", format: (v) => v.toFixed(0) },
];

/** The header and one row of cells per strategy, as text. */
function cells(e: ExperimentResult): string[][] {
  const several = e.seeds.length > 1;
  const header = ["strategy", ...COLUMNS.map((c) => c.title)];
  const rows = e.results.map(({ strategy, summary }) => [
    `${strategy.name} ${strategy.description}`,
    ...COLUMNS.map(({ key, format }) =>
      several
        ? `${format(summary[key])} (${format(summary.min[key])}..${format(summary.max[key])})`
        : format(summary[key]),
    ),
  ]);
  return [header, ...rows];
}

function caption(e: ExperimentResult): string {
  const seeds = e.seeds.length > 1 ? `seeds ${e.seeds.join(",")}: mean (min..max)` : `seed ${e.seeds[0]}`;
  return `${e.settings.devices} devices, ${e.settings.durationMs / 1000} s, ${seeds}`;
}

export function formatTable(e: ExperimentResult): string {
  const rows = cells(e);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [caption(e), ...rows.map(line)].join("\n");
}

/** The same table in Markdown, for docs/fleet.md. */
export function formatMarkdown(e: ExperimentResult): string {
  const [header, ...rows] = cells(e);
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    `${caption(e)}:`,
    "",
    line(header),
    line(header.map((_, i) => (i === 0 ? "---" : "---:"))),
    ...rows.map(line),
  ].join("\n");
}
