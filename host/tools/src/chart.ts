// Charts as SVG, drawn by Vega-Lite and rendered headless by Vega (no canvas, no browser).
import type { TopLevelSpec } from "vega-lite";

/** Renders a Vega-Lite spec to an SVG string. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded for the first chart: every command imports this file, and most draw none.
  const [vega, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
