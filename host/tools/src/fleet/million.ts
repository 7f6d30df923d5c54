// The experiment at a million devices (docs/fleet.md, A million devices): strategy C, seed
// 42, with the default scaling, at 10,000, 100,000 and 1,000,000 devices beside the
// 200-device run, as a table (its chart: million-chart.ts). The big runs take minutes, so
// npm run docs:fleet -- --million writes their rows to docs/fleet-million.json and every
// docs:fleet renders the section from that file.
import { markdownTable } from "../markdown.js";
import { runOne } from "./experiment.js";
import { runExperimentParallel } from "./parallel.js";
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

/** Seeds of the 200-device runs whose means are the second reference: seed 42's run is one
 * draw of a small, noisy fleet, where a large fleet's figures sit near their means. */
export const REFERENCE_SEEDS = 100;

/** A shape figure over the reference runs: its mean and its 10th and 90th percentiles. */
export interface Spread {
  mean: number;
  p10: number;
  p90: number;
}

/** The shape's three figures of one run: success rate, p99 and the peak per device. */
function shapeOf(s: SizeRow): [number, number, number] {
  return [s.row.successRate, s.row.p99Ms, s.row.peak100ms / s.devices];
}

/** Strategy C at `devices` devices over seeds 1 to REFERENCE_SEEDS (on `threads` threads):
 * the shape's figures' spreads. */
export async function referenceSpread(devices: number, threads: number): Promise<Spread[]> {
  const seeds = Array.from({ length: REFERENCE_SEEDS }, (_, k) => k + 1);
  const [{ runs }] = (
    await runExperimentParallel(experimentSettings(devices), [STRATEGIES.C], seeds, threads)
  ).results;
  const shapes = runs.map((row) => shapeOf({ devices, row }));
  return [0, 1, 2].map((f) => {
    const v = shapes.map((shape) => shape[f]).sort((a, b) => a - b);
    const at = (q: number) => v[Math.floor(q * (v.length - 1))];
    return { mean: v.reduce((a, b) => a + b, 0) / v.length, p10: at(0.1), p90: at(0.9) };
  });
}

/** The second table: the 200-device runs' spread over the seeds, then each size against their means. */
function spreadMarkdown(devices: number, spreads: Spread[], sizes: SizeRow[]): string {
  const [success, p99, peak] = spreads;
  const range = (s: Spread, show: (v: number) => string) =>
    `${show(s.mean)} (${show(s.p10)} to ${show(s.p90)})`;
  const perThousand = (v: number) => (v * 1000).toFixed(1);
  const head = ["devices", "success", "p99 ms", "peak per 1000 devices"];
  const lines = [
    [
      `${devices}, seeds 1 to ${REFERENCE_SEEDS}: mean (10th to 90th percentile)`,
      range(success, percent),
      range(p99, (v) => v.toFixed(0)),
      range(peak, perThousand),
    ],
    ...sizes.map((s) => {
      const shape = shapeOf(s);
      return [
        `${s.devices.toLocaleString("en")} against the mean`,
        change(shape[0], success.mean),
        change(shape[1], p99.mean),
        change(shape[2], peak.mean),
      ];
    }),
  ];
  return markdownTable(head, lines);
}

/** The tables: each size's figures, how far its shape is from the 200-device run's, and
 * from the means of the 200-device runs over REFERENCE_SEEDS seeds (`spreads`). */
export function millionMarkdown(reference: SizeRow, sizes: SizeRow[], spreads: Spread[]): string {
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
  return `${markdownTable(head, lines)}\n\n${spreadMarkdown(reference.devices, spreads, sizes)}`;
}
