// The layout the fleet's time charts share (the burst, the broker restart): one panel a
// strategy, stacked, each named above it, every panel drawn by the same layers.
import type { TopLevelSpec } from "vega-lite";

type FacetSpec = Extract<TopLevelSpec, { facet: unknown }>;
type Layers = Extract<FacetSpec["spec"], { layer: unknown }>["layer"];

/** `values` (each with a `strategy` field) as one 640 x 90 panel per strategy, in `sort`'s
 * order if given. */
export function strategyRows(
  title: { text: string; subtitle: string },
  values: object[],
  layer: Layers,
  sort?: string[],
): FacetSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    background: "white",
    title,
    data: { values },
    facet: {
      row: {
        field: "strategy",
        type: "nominal",
        title: null,
        ...(sort && { sort }),
        header: { labelOrient: "top", labelAngle: 0, labelAnchor: "start", labelFontSize: 12 },
      },
    },
    spec: { width: 640, height: 90, layer },
  };
}
