// The outage's shape at a million devices (docs/fleet.md, A million devices): the second
// table sets each size against the means of the 200-device runs over many seeds.
import { describe, expect, it } from "vitest";
import { millionMarkdown, type SizeRow, type Spread } from "../../../../host/tools/src/fleet/million.js";
import type { Row } from "../../../../host/tools/src/fleet/metrics.js";

const row = (successRate: number, p99Ms: number, peak100ms: number): Row => ({
  strategy: "C",
  arrivals: "open",
  successRate,
  totalRequests: 0,
  retriesSent: 0,
  retriesDenied: 0,
  peak1s: 0,
  peak100ms,
  p95Ms: 0,
  p99Ms,
  recoveryMs: 0,
  staleResponses: 0,
  tableFull: 0,
  operations: 0,
});

describe("the million-device shape table", () => {
  const reference: SizeRow = { devices: 200, row: row(0.9, 2000, 100) };
  const sizes: SizeRow[] = [{ devices: 1_000_000, row: row(0.99, 2100, 450_000) }];
  const spreads: Spread[] = [
    { mean: 0.9, p10: 0.8, p90: 0.95 },
    { mean: 2000, p10: 1800, p90: 2200 },
    { mean: 0.5, p10: 0.4, p90: 0.6 },
  ];
  // Cells as text: the table's columns are padded to line up on a terminal.
  const lines = millionMarkdown(reference, sizes, spreads)
    .split("\n")
    .map((l) => l.replace(/ +\|/g, " |"));

  it("gives the reference runs' means with their 10th and 90th percentiles", () => {
    expect(lines).toContain(
      "| 200, seeds 1 to 100: mean (10th to 90th percentile) | 90.0% (80.0% to 95.0%) | 2000 (1800 to 2200) | 500.0 (400.0 to 600.0) |",
    );
  });

  it("sets each size against those means, the peak per device included", () => {
    expect(lines).toContain("| 1,000,000 against the mean | +10.0% | +5.0% | -10.0% |");
  });

  it("still sets each size against the one run of the first table", () => {
    expect(lines.find((l) => l.startsWith("| 1,000,000 |"))).toContain("| +10.0% | +5.0% | -10.0% |");
  });
});
