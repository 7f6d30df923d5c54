// The broker restart at a million devices (docs/fleet.md, A million devices): every
// strategy, seed 42, with the default scaling of the broker (settings.ts), at each of
// MILLION_SIZES beside the 1,000-device run, as a table. Like the outage's sizes
// (../million.ts), npm run docs:fleet -- --million writes their rows to
// docs/fleet-million.json, and every docs:fleet renders them from there.
import { markdownTable } from "../../markdown.js";
import { change } from "../million.js";
import { runBrokerExperiment } from "./cli.js";
import type { BrokerRow } from "./run.js";
import { brokerSettings } from "./settings.js";

/** One fleet size's runs: a row per strategy, as tickretry fleet --scenario broker-restart
 * --devices N --json prints them, and the broker's CPU per 100 ms they ran with. */
export interface BrokerSizeRow {
  devices: number;
  cpuPerBucketMs: number;
  rows: BrokerRow[];
}

/** Every strategy under `seed` at `devices` devices, the broker scaled with them;
 * `progress` hears the share of the runs done. */
export function runBrokerSize(
  devices: number,
  seed: number,
  progress?: (share: number) => void,
): BrokerSizeRow {
  const settings = brokerSettings(devices);
  const rows = runBrokerExperiment(settings, [seed], progress).map(([run]) => run.row);
  return { devices, cpuPerBucketMs: settings.broker.cpuPerBucketMs, rows };
}

/** The table's columns, the reference run's size in one of them. */
const head = (reference: number) => [
  "strategy",
  "devices",
  "broker CPU ms / 100 ms",
  "peak connects / 100 ms",
  "peak per 1000 devices",
  `peak per device vs ${reference}`,
  "99% reconnected after (ms)",
  "connects per device",
  "broker overloaded (ms)",
];

/** The table: a line per strategy and size, each size's peak per device against the
 * `reference` run's (1,000 devices). */
export function brokerMillionMarkdown(reference: BrokerSizeRow, sizes: BrokerSizeRow[]): string {
  const all = [reference, ...sizes];
  const lines = reference.rows.flatMap((ref) =>
    all.map(({ devices, cpuPerBucketMs, rows }) => {
      const row = rows.find((r) => r.strategy === ref.strategy);
      if (row === undefined) throw new Error(`no row of "${ref.strategy}" at ${devices} devices`);
      const perDevice = (r: BrokerRow, n: number) => r.peakConnects100ms / n;
      return [
        row.strategy,
        devices.toLocaleString("en"),
        `${cpuPerBucketMs}`,
        `${row.peakConnects100ms}`,
        (perDevice(row, devices) * 1000).toFixed(1),
        change(perDevice(row, devices), perDevice(ref, reference.devices)),
        row.reconnected99Ms === null ? "never" : `${row.reconnected99Ms}`,
        (row.connectAttempts / devices).toFixed(2),
        `${row.overloadedMs}`,
      ];
    }),
  );
  const columns = head(reference.devices);
  return markdownTable(columns, lines);
}
