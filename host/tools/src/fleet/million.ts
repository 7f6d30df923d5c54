// The experiment at a million devices (docs/fleet.md, A million devices): strategy C, seed
// 42, with the default scaling, at 10,000, 100,000 and 1,000,000 devices beside the
// 200-device run, as a table (its chart: million-chart.ts). The big runs take minutes, so
// npm run docs:fleet -- --million writes their rows to docs/fleet-million.json and every
// docs:fleet renders the section from that file.
import { runOne } from "./experiment.js";
import type { Row } from "./metrics.js";
import { experimentSettings } from "./settings.js";
import { STRATEGIES } from "./strategies.js";

export const MILLION_SIZES = [10_000, 100_000, 1_000_000];
export const MILLION_SEED = 42;

/** One fleet size's run: its --json row (tickretry fleet --devices N --strategies C --json). */
export interface SizeRow {
  devices: number;
  row: Row;
}

/** Strategy C, seed 42, at `devices` devices with the default scaling. */
export function runSize(devices: number, progress?: (share: number) => void): SizeRow {
  return {
    devices,
    row: runOne(experimentSettings(devices), STRATEGIES.C, MILLION_SEED, false, progress).row,
  };
}

const percent = (v: number) => `${(v * 100).toFixed(1)}%`;
/** v's distance from `of`, as a signed percentage. */
export const change = (v: number, of: number) =>
  `${v >= of ? "+" : ""}${(((v - of) / of) * 100).toFixed(1)}%`;

/** The table: each size's figures, and how far its shape is from the 200-device run's. */
export function millionMarkdown(reference: SizeRow, sizes: SizeRow[]): string {
  const perDevice = (s: SizeRow) => s.row.peak100ms / s.devices;
  const head = [
    "devices",
    "success",
    "p99 ms",
    "peak 100ms",
    "peak per 1000 devices",
    "success vs 200",
    "p99 vs 200",
    "peak per device vs 200",
  ];
  const lines = [reference, ...sizes].map((s) => [
    s.devices.toLocaleString("en"),
    percent(s.row.successRate),
    `${s.row.p99Ms}`,
    `${s.row.peak100ms}`,
    (perDevice(s) * 1000).toFixed(1),
    change(s.row.successRate, reference.row.successRate),
    change(s.row.p99Ms, reference.row.p99Ms),
    change(perDevice(s), perDevice(reference)),
  ]);
  return [head, head.map(() => "---"), ...lines].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}
