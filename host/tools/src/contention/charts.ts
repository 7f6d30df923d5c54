// The article's two charts as one Vega-Lite spec: writes sent and completion time against
// the number of clients, one line per strategy.
import type { TopLevelSpec } from "vega-lite";
import type { ContentionRow } from "./experiment.js";

export function contentionSpec(rows: ContentionRow[], seed: number): TopLevelSpec {
  const line = (field: "calls" | "completionMs", title: string, scale: "linear" | "log") => ({
    width: 320,
    height: 240,
    mark: { type: "line" as const, point: true },
    encoding: {
      x: { field: "clients", type: "quantitative" as const, title: "clients" },
      y: { field, type: "quantitative" as const, title, scale: { type: scale } },
      color: { field: "strategy", type: "nominal" as const, sort: [...new Set(rows.map((r) => r.strategy))] },
    },
  });
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    background: "white",
    title: {
      text: "Optimistic concurrency: N clients update one row once",
      subtitle: `each client its own tickretry module; mean over ${rows[0].runs} runs, seed ${seed}`,
    },
    data: { values: rows },
    // Completion on a log scale: exponential backoff without jitter takes ten times the rest.
    hconcat: [
      line("calls", "writes sent (calls)", "linear"),
      line("completionMs", "time until the last succeeded (ms, log scale)", "log"),
    ],
  };
}
