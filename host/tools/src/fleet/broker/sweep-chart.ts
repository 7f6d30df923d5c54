// The broker restart's strategies and the parameter sweep (sweep.ts) as one Vega-Lite
// scatter: connect attempts against the time to 99% reconnected, means over the seeds, the
// sweep's points by family, the table's strategies labelled, and the broker's limit
// (model.ts, reconnectFloorMs) drawn as a line with the goal, 24 s, beside.
import type { TopLevelSpec } from "vega-lite";
import type { BrokerRow } from "./run.js";
import { GOALS } from "./strategies.js";
import type { SweepPoint } from "./sweep.js";

/** The chart's time axis, s; a point past its end is drawn at the edge. */
const TIME_S: [number, number] = [19, 40];
const HEIGHT = 400;

const X = {
  field: "t",
  type: "quantitative" as const,
  title: "99% reconnected after the broker's return (s)",
  scale: { domain: TIME_S, clamp: true, nice: false },
};
const Y = { field: "attempts", type: "quantitative" as const, title: "connect attempts after the restart" };

/** The points to draw, in s and attempts: each strategy's mean over its seeds and the
 * sweep's, less those that never got 99% back (counted in `never`). */
function chartPoints(rows: BrokerRow[][], sweep: SweepPoint[]) {
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const done = (r: BrokerRow[]) => r.every((x) => x.reconnected99Ms !== null);
  const strategies = rows.filter(done).map((r) => ({
    strategy: r[0].strategy,
    t: mean(r.map((x) => x.reconnected99Ms as number)) / 1000,
    attempts: mean(r.map((x) => x.connectAttempts)),
  }));
  const points = sweep
    .filter((p) => p.reconnected99Ms !== null)
    .map((p) => ({ ...p, t: (p.reconnected99Ms as number) / 1000, attempts: p.connectAttempts }));
  const never = rows.length - strategies.length + sweep.length - points.length;
  return { strategies: spreadLabels(strategies), points, never };
}

/** The strategies with `labelAt`, their attempts moved apart where labels would overlap:
 * several lie within a second of the limit at nearly the same attempts. */
function spreadLabels<T extends { attempts: number }>(strategies: T[]): (T & { labelAt: number })[] {
  const gap = 0.03 * Math.max(...strategies.map((s) => s.attempts));
  const sorted = [...strategies].sort((a, b) => a.attempts - b.attempts);
  let last = -Infinity;
  const at = new Map(sorted.map((s) => [s, (last = Math.max(s.attempts, last + gap))]));
  return strategies.map((s) => ({ ...s, labelAt: at.get(s)! }));
}

/** The limit and the goal with the operator's window, dashed rules labelled at the foot
 * (the strategies' labels crowd the top). */
function limitLayers(limitMs: number) {
  const goalS = GOALS.window.reconnected99Ms / 1000;
  const values = [
    { t: limitMs / 1000, label: `limit ${(limitMs / 1000).toFixed(1)} s` },
    { t: goalS, label: `goal ${goalS} s` },
  ];
  const x = { ...X, title: null };
  return [
    { data: { values }, mark: { type: "rule" as const, strokeDash: [4, 3], color: "#666" }, encoding: { x } },
    {
      data: { values },
      mark: {
        type: "text" as const,
        align: "left" as const,
        dx: 4,
        baseline: "bottom" as const,
        color: "#666",
      },
      encoding: { x, y: { value: HEIGHT - 4 }, text: { field: "label" } },
    },
  ];
}

/** `rows[s]`: strategy s's rows over the seeds; `sweep`: the sweep's points; `limitMs` the floor. */
export function sweepSpec(
  rows: BrokerRow[][],
  sweep: SweepPoint[],
  limitMs: number,
  devices: number,
): TopLevelSpec {
  const { strategies, points, never } = chartPoints(rows, sweep);
  const family = { field: "family", type: "nominal" as const };
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: {
      text: `Broker restart, ${devices} devices: connect attempts against time to 99% reconnected`,
      subtitle: [
        `means over ${rows[0].length} seeds; coloured: the parameter sweep (npm run docs:broker-sweep), black: the table's strategies;`,
        `a point past ${TIME_S[1]} s is drawn at the edge; ${never} that never got 99% back within the run are left out`,
      ],
    },
    width: 640,
    height: HEIGHT,
    // Room for the labels of the points at the edge.
    padding: { left: 5, top: 5, bottom: 5, right: 200 },
    layer: [
      ...limitLayers(limitMs),
      {
        data: { values: points },
        mark: { type: "point", filled: true, opacity: 0.55, size: 40 },
        encoding: {
          x: X,
          y: Y,
          color: { ...family, legend: { orient: "bottom", columns: 1, labelLimit: 600, title: null } },
          shape: family,
          tooltip: [{ field: "params" }, { field: "t" }, { field: "attempts" }],
        },
      },
      {
        data: { values: strategies },
        mark: { type: "point", filled: true, color: "black", size: 70, shape: "diamond" },
        encoding: { x: X, y: Y },
      },
      {
        data: { values: strategies },
        mark: { type: "text", align: "left", dx: 7, fontSize: 10 },
        encoding: { x: X, y: { ...Y, field: "labelAt" }, text: { field: "strategy" } },
      },
    ],
  };
}
