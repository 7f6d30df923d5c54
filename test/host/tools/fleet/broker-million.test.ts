// The broker restart at 10,000 to 1,000,000 devices in docs/fleet.md (A million devices):
// the rows docs/fleet-million.json keeps are every strategy at every size with the default
// scaling, the section's table is rendered from them, and the table's per-device figures.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  brokerMillionMarkdown,
  type BrokerSizeRow,
} from "../../../../host/tools/src/fleet/broker/million.js";
import type { BrokerRow } from "../../../../host/tools/src/fleet/broker/run.js";
import { brokerSettings } from "../../../../host/tools/src/fleet/broker/settings.js";
import { BROKER_STRATEGIES } from "../../../../host/tools/src/fleet/broker/strategies.js";
import { MILLION_SIZES } from "../../../../host/tools/src/fleet/million.js";

const data = JSON.parse(readFileSync("docs/fleet-million.json", "utf8")) as { broker: BrokerSizeRow[] };
const page = readFileSync("docs/fleet.md", "utf8");

/** The cells of every line of the table between the section's markers. */
function tableLines(): string[][] {
  const from = page.indexOf("<!-- broker million tables: start -->");
  const to = page.indexOf("<!-- broker million tables: end -->");
  return page
    .slice(from, to)
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

const row = (strategy: string, peak: number, reconnected: number | null): BrokerRow => ({
  strategy,
  peakConnects100ms: peak,
  reconnected99Ms: reconnected,
  connectAttempts: 2 * peak,
  overloadedMs: 300,
});

describe("the broker restart at a million devices", () => {
  it("keeps every strategy's row at every size, the broker scaled by the default rule", () => {
    expect(data.broker.map((s) => s.devices)).toEqual(MILLION_SIZES);
    for (const size of data.broker) {
      expect(size.cpuPerBucketMs).toBe(brokerSettings(size.devices).broker.cpuPerBucketMs);
      expect(size.rows.map((r) => r.strategy)).toEqual(BROKER_STRATEGIES.map((s) => s.name));
    }
  });

  it("has docs/fleet.md's table show each of those rows", () => {
    const lines = tableLines();
    for (const { devices, cpuPerBucketMs, rows } of data.broker) {
      for (const r of rows) {
        const cells = [
          r.strategy,
          devices.toLocaleString("en"),
          `${cpuPerBucketMs}`,
          `${r.peakConnects100ms}`,
        ];
        expect(lines.some((line) => cells.every((c, k) => line[k] === c))).toBe(true);
      }
    }
  });

  it("gives each size's figures per device and against the reference run's", () => {
    const reference = { devices: 1000, cpuPerBucketMs: 100, rows: [row("a", 200, 5000)] };
    const large = { devices: 10_000, cpuPerBucketMs: 1000, rows: [row("a", 2500, null)] };
    const [, , ...lines] = brokerMillionMarkdown(reference, [large])
      .split("\n")
      .map((line) =>
        line
          .split("|")
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    expect(lines).toEqual([
      ["a", "1,000", "100", "200", "200.0", "+0.0%", "5000", "0.40", "300"],
      ["a", "10,000", "1000", "2500", "250.0", "+25.0%", "never", "0.50", "300"],
    ]);
  });

  it("refuses a size without a row of the reference's strategy", () => {
    const reference = { devices: 1000, cpuPerBucketMs: 100, rows: [row("a", 200, 5000)] };
    const other = { devices: 10_000, cpuPerBucketMs: 1000, rows: [row("b", 2500, null)] };
    expect(() => brokerMillionMarkdown(reference, [other])).toThrow(/no row of "a" at 10000 devices/);
  });
});
