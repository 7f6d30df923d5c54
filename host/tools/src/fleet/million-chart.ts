// The chart of docs/fleet.md's A million devices: the peak per 100 ms against fleet size,
// both on log scales, for the outage (requests, strategy C, beside the 200-device run's
// peak per device carried to every size) above the broker restart (connect attempts, every
// strategy).
import type { TopLevelSpec } from "vega-lite";
import type { BrokerSizeRow } from "./broker/million.js";
import { BROKER_DEVICES, DEFAULT_BROKER_SETTINGS } from "./broker/settings.js";
import { BROKER_STRATEGIES } from "./broker/strategies.js";
import { MILLION_SEED, type SizeRow } from "./million.js";

type Panel = Extract<TopLevelSpec, { vconcat: unknown }>["vconcat"][number];

const devicesAxis = {
  field: "devices",
  type: "quantitative",
  scale: { type: "log" },
  title: "devices",
} as const;

/** Points joined by lines, `peak` against `devices`, both on log scales; `series` says
 * how the lines are told apart. */
function logPanel(
  title: { text: string; subtitle: string },
  values: { devices: number; peak: number }[],
  peakTitle: string,
  series: Record<string, unknown>,
): Panel {
  return {
    title,
    width: 560,
    height: 300,
    data: { values },
    mark: { type: "line", point: true },
    encoding: {
      x: devicesAxis,
      y: { field: "peak", type: "quantitative", scale: { type: "log" }, title: peakTitle },
      ...series,
    },
  } as Panel;
}

function outagePanel(reference: SizeRow, sizes: SizeRow[]): Panel {
  const perDevice = reference.row.peak100ms / reference.devices;
  const values = [reference, ...sizes].flatMap((s) => [
    { devices: s.devices, peak: s.row.peak100ms, series: "simulated" },
    { devices: s.devices, peak: Math.round(perDevice * s.devices), series: "200-device run, scaled" },
  ]);
  const title = {
    text: `Peak requests per 100 ms against fleet size, strategy C, seed ${MILLION_SEED}`,
    subtitle: "the dependency scaled with devices / 200; 30 s of virtual time",
  };
  return logPanel(title, values, "peak requests per 100 ms", {
    // One legend for both (a strokeDash without one hid the colours' legend too).
    color: { field: "series", type: "nominal", title: null },
    strokeDash: { field: "series", type: "nominal", title: null },
  });
}

function brokerPanel(reference: BrokerSizeRow, sizes: BrokerSizeRow[]): Panel {
  const values = [reference, ...sizes].flatMap((s) =>
    s.rows.map((r) => ({ devices: s.devices, peak: r.peakConnects100ms, strategy: r.strategy })),
  );
  const per = BROKER_DEVICES.toLocaleString("en");
  const title = {
    text: `Peak connects per 100 ms after the broker restart against fleet size, seed ${MILLION_SEED}`,
    subtitle: `the broker scaled with devices / ${per} (one core per ${per} devices); ${DEFAULT_BROKER_SETTINGS.durationMs / 1000} s of virtual time`,
  };
  return logPanel(title, values, "peak connects per 100 ms", {
    color: { field: "strategy", type: "nominal", title: null, sort: BROKER_STRATEGIES.map((s) => s.name) },
  });
}

/** Both panels, stacked, on one axis of devices, each with its own colours and legend. */
export function millionSpec(
  outage: { reference: SizeRow; sizes: SizeRow[] },
  broker: { reference: BrokerSizeRow; sizes: BrokerSizeRow[] },
): TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    background: "white",
    config: { legend: { labelLimit: 400 } },
    vconcat: [outagePanel(outage.reference, outage.sizes), brokerPanel(broker.reference, broker.sizes)],
    resolve: { scale: { x: "shared", color: "independent", strokeDash: "independent" } },
  };
}
