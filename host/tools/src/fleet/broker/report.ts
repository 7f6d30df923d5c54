// `tickretry fleet --scenario broker-restart --report FILE`: the settings, the table and
// the chart of connect attempts after the restart (the first seed's runs), in one HTML
// file with the SVG inlined, as the outage's report (../report.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { renderSvg } from "../../chart.js";
import { escapeHtml, htmlTable, reportPage } from "../../html.js";
import { brokerSpec } from "./chart.js";
import type { BrokerRun } from "./run.js";
import type { BrokerSettings } from "./settings.js";
import { brokerCells } from "./table.js";

/** `runs[s][k]`: strategy s under seeds[k]. */
export async function writeBrokerReport(
  path: string,
  settings: BrokerSettings,
  seeds: number[],
  runs: BrokerRun[][],
): Promise<void> {
  const series = runs.map((r) => ({ strategy: r[0].row.strategy, attempts: r[0].attempts }));
  const chart = await renderSvg(brokerSpec(settings, series, seeds[0]));
  const [head, ...rows] = brokerCells(
    runs.map((r) => r.map((x) => x.row)),
    seeds,
  );
  const html = reportPage(
    "tickretry fleet: broker restart",
    `<p>${settings.devices} devices each hold one session to a broker that restarts at ${settings.restartAtMs / 1000} s and is
back ${settings.downMs / 1000} s later. The model and how the figures are measured: the tickretry repository's
docs/fleet.md, "A broker restart".</p>
<h2>Figures</h2>
${htmlTable(head, rows)}
<h2>Connect attempts after the restart</h2>
${chart}
<h2>Settings</h2>
<pre>${escapeHtml(JSON.stringify(settings, null, 2))}</pre>
`,
  );
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, html);
}
