// The HTML report: settings, the table and two charts, in one file with the SVG inlined
// (no scripts, no CDN), so it opens anywhere and can be attached as it is.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { renderSvg } from "../chart.js";
import { burstSpec, comparisonSpec, powerCutSpec } from "./charts.js";
import type { ExperimentResult } from "./experiment.js";
import { arrivalsLabel } from "./settings.js";
import { caption, cells } from "./table.js";
import { escapeHtml, htmlTable, reportPage } from "../html.js";

// JSON has no Infinity (the default hold limit): spell it out instead of printing null.
const json = (v: unknown) => JSON.stringify(v, (_, x) => (x === Infinity ? "Infinity" : x), 2);

export async function writeReport(path: string, e: ExperimentResult): Promise<void> {
  const [burst, comparison, powerCut] = await Promise.all([
    renderSvg(burstSpec(e)),
    renderSvg(comparisonSpec(e)),
    e.settings.powerCut ? renderSvg(powerCutSpec(e)) : "",
  ]);
  const [header, ...rows] = cells(e);
  const strategies = e.results.map(({ strategy }) => ({
    name: strategy.name,
    description: strategy.description,
    policy: strategy.policy,
    budget: strategy.budget ?? "off",
    ...(strategy.boot && { boot: strategy.boot }),
  }));
  const html = reportPage(
    "tickretry fleet: outage recovery",
    `<p>Device model: <strong>${escapeHtml(arrivalsLabel(e.settings))}</strong>.</p>
<p>Every device runs its own instance of host/library/build/tickretry.wasm in virtual time. The model, its settings and how
recovery is measured: docs/fleet.md.</p>
<h2>Figures</h2>
<p>${escapeHtml(caption(e))}</p>
${htmlTable(header, rows)}
<h2>The burst at recovery</h2>
${burst}
<h2>Strategies compared</h2>
${comparison}
${powerCut && `<h2>The power cut</h2>\n${powerCut}`}
<h2>Strategies</h2>
<pre>${escapeHtml(json(strategies))}</pre>
<h2>Settings</h2>
<pre>${escapeHtml(json(e.settings))}</pre>
`,
  );
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, html);
}
