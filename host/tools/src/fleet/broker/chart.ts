// The broker-restart chart as a Vega-Lite spec: connect attempts per 100 ms from the
// restart on, one panel per strategy (seed 42), the broker's downtime shaded.
import type { TopLevelSpec } from "vega-lite";
import { strategyRows } from "../strategy-rows.js";
import { BUCKET_MS } from "./model.js";
import type { BrokerSettings } from "./settings.js";

export interface BrokerSeries {
  strategy: string;
  /** Connect attempts per 100 ms bucket, from the restart on. */
  attempts: number[];
}

/** Shows the first `windowMs` after the restart. */
export function brokerSpec(
  s: BrokerSettings,
  series: BrokerSeries[],
  seed: number,
  windowMs = 90_000,
): TopLevelSpec {
  const at = s.restartAtMs / 1000;
  const values = series.flatMap(({ strategy, attempts }) =>
    attempts
      .slice(0, windowMs / BUCKET_MS)
      .map((connects, b) => ({ strategy, t: at + (b * BUCKET_MS) / 1000, connects })),
  );
  const time = {
    field: "t",
    type: "quantitative" as const,
    title: "virtual time (s)",
    scale: { domain: [at, at + windowMs / 1000], nice: false, zero: false },
  };
  // One y scale for every panel (strategyRows' facet shares it): the strategies compared at a glance.
  return strategyRows(
    {
      text: `Connect attempts per 100 ms after the broker restart, ${s.devices} devices, seed ${seed}`,
      subtitle: `restart at ${at} s, broker back ${s.downMs / 1000} s later (shaded); a handshake costs ${s.broker.connectCostMs} ms of ${s.broker.cpuPerBucketMs} ms CPU per 100 ms`,
    },
    values,
    [
      {
        data: { values: [{ from: at, to: at + s.downMs / 1000 }] },
        mark: { type: "rect", color: "#e8e8e8" },
        encoding: { x: { ...time, field: "from" }, x2: { field: "to" } },
      },
      {
        mark: { type: "bar", color: "#4c78a8" },
        encoding: { x: time, y: { field: "connects", type: "quantitative", title: "connects" } },
      },
    ],
    series.map((x) => x.strategy),
  );
}
