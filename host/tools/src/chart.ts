// Charts as SVG, drawn by Vega-Lite and rendered headless by Vega (no canvas, no browser).
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

/** Renders a Vega-Lite spec to an SVG string. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
