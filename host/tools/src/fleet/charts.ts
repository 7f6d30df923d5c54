// The fleet's charts as Vega-Lite specs; host/tools/src/chart.ts renders them to SVG in the
// process, so the report is one self-contained file.
import type { TopLevelSpec } from "vega-lite";
import type { ExperimentResult } from "./experiment.js";
import { BUCKET_MS, type NumericKey } from "./metrics.js";
import { arrivalsLabel } from "./settings.js";
import { strategyRows } from "./strategy-rows.js";

/** Requests and retries per 100 ms of every run in [from, to) ms, each point labelled. */
function windowValues(
  e: ExperimentResult,
  [from, to]: [number, number],
  labels: (strategy: ExperimentResult["results"][number]["strategy"]) => Record<string, string>,
) {
  return e.results.flatMap(({ strategy, timeline }) =>
    timeline.requests
      .map((requests, b) => ({
        ...labels(strategy),
        t: (b * BUCKET_MS) / 1000,
        requests,
        retries: timeline.retries[b],
      }))
      .filter(({ t }) => t >= from / 1000 && t < to / 1000),
  );
}

/** A panel's layers over [from, to) ms: the span [shadeFrom, shadeTo] s shaded, requests
 * as a blue area and retries as a red one. One x scale for every layer, fixed to the
 * window (a rect would otherwise pull in 0). */
function windowLayers([from, to]: [number, number], shadeFrom: number, shadeTo: number) {
  const time = {
    field: "t",
    type: "quantitative" as const,
    title: "virtual time (s); red: retries",
    scale: { domain: [from / 1000, to / 1000], nice: false, zero: false },
  };
  return [
    {
      data: { values: [{ from: shadeFrom, to: shadeTo }] },
      mark: { type: "rect" as const, color: "#e8e8e8" },
      encoding: { x: { ...time, field: "from" }, x2: { field: "to" } },
    },
    {
      mark: { type: "area" as const, color: "#4c78a8", interpolate: "step-after" as const },
      encoding: { x: time, y: { field: "requests", type: "quantitative" as const, title: "requests" } },
    },
    {
      mark: { type: "area" as const, color: "#e45756", interpolate: "step-after" as const },
      encoding: { x: time, y: { field: "retries", type: "quantitative" as const } },
    },
  ];
}

/** Requests sent per 100 ms, one panel per strategy, from 1.5 s before the first scripted
 * change to 1 s after the last (7 s to 16 s by default): the burst at the resume. */
export function burstSpec(e: ExperimentResult): TopLevelSpec {
  const changes = e.settings.dependency.script.map((c) => c.at);
  const window: [number, number] =
    changes.length === 0
      ? [0, e.settings.durationMs]
      : [
          Math.max(0, Math.min(...changes) - 1500),
          Math.min(e.settings.durationMs, Math.max(...changes) + 1000),
        ];
  const values = windowValues(e, window, (strategy) => ({
    strategy: `${strategy.name}: ${strategy.description}`,
  }));
  const freeze = e.settings.dependency.script.filter((c) => c.frozen !== undefined).map((c) => c.at / 1000);
  // Without a freeze the shaded span is empty.
  return strategyRows(
    {
      text: `Requests per 100 ms, ${e.settings.devices} devices, seed ${e.seeds[0]} (shaded: the freeze)`,
      subtitle: arrivalsLabel(e.settings),
    },
    values,
    windowLayers(window, freeze[0] ?? 0, freeze[1] ?? freeze[0] ?? 0),
  );
}

const COMPARED: { key: NumericKey; title: string }[] = [
  { key: "peak100ms", title: "peak per 100 ms" },
  { key: "peak1s", title: "peak per 1 s" },
  { key: "retriesSent", title: "retries sent" },
  { key: "successRate", title: "success rate (affected)" },
];

/** The strategies side by side on the headline figures; whiskers span min..max over seeds. */
export function comparisonSpec(e: ExperimentResult): TopLevelSpec {
  const values = e.results.flatMap(({ strategy, summary }) =>
    COMPARED.map(({ key, title }) => ({
      strategy: strategy.name,
      metric: title,
      mean: summary[key],
      min: summary.min[key],
      max: summary.max[key],
    })),
  );
  const seeds = e.seeds.length > 1 ? `mean over seeds ${e.seeds.join(",")}, min..max` : `seed ${e.seeds[0]}`;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    background: "white",
    title: { text: `Strategies compared (${seeds})`, subtitle: arrivalsLabel(e.settings) },
    data: { values },
    facet: { column: { field: "metric", type: "nominal", title: null, sort: COMPARED.map((c) => c.title) } },
    resolve: { scale: { y: "independent" } },
    spec: {
      width: 140,
      height: 160,
      layer: [
        {
          mark: "bar",
          encoding: {
            x: { field: "strategy", type: "nominal", title: null },
            y: { field: "mean", type: "quantitative", title: null },
            color: { field: "strategy", type: "nominal", legend: null },
          },
        },
        {
          mark: { type: "rule", color: "black" },
          encoding: {
            x: { field: "strategy", type: "nominal" },
            y: { field: "min", type: "quantitative" },
            y2: { field: "max" },
          },
        },
      ],
    },
  };
}

/** With a power cut: requests per 100 ms (red: retries) from 1 s before the cut to 3 s
 * after power came back, one row per boot mode and one column per policy (shaded: no
 * power). */
export function powerCutSpec(e: ExperimentResult): TopLevelSpec {
  const cut = e.settings.powerCut!;
  const boot = cut.atMs + cut.outageMs;
  const window: [number, number] = [
    Math.max(0, cut.atMs - 1000),
    Math.min(e.settings.durationMs, boot + 3000),
  ];
  const values = windowValues(e, window, (strategy) => ({
    policy: strategy.name.split("/")[0],
    boot: `at boot: ${strategy.boot ?? "restore"}`,
  }));
  const header = { labelAngle: 0, labelFontSize: 12 };
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    background: "white",
    title: {
      text: `Requests per 100 ms around a power cut, ${e.settings.devices} devices, seed ${e.seeds[0]} (shaded: no power)`,
      subtitle: arrivalsLabel(e.settings),
    },
    data: { values },
    facet: {
      row: {
        field: "boot",
        type: "nominal",
        title: null,
        sort: ["restore", "restore-no-clock", "afresh"].map((b) => `at boot: ${b}`),
        header: { ...header, labelOrient: "top", labelAnchor: "start" },
      },
      column: { field: "policy", type: "nominal", title: null, header },
    },
    spec: { width: 260, height: 90, layer: windowLayers(window, cut.atMs / 1000, boot / 1000) },
  };
}
