// The setup page's HTML: the settings form, the fault controls, and empty tables that
// page-client.js fills from /status.json. Rendered on the server only for what a form
// post must answer with (errors, the values typed); every value is escaped.
import { SCENARIOS, SCENARIO_NAMES, type ScenarioName } from "../upstream/scenarios.js";
import { MAX_SLEEP_S, MAX_STALL_MS } from "./loop.js";
import { escapeHtml as e } from "../html.js";
import type { Settings, SettingsErrors } from "./settings.js";

export interface PageView {
  stored: Settings;
  /** The values typed in a refused form (the password is never sent back). */
  typed?: { ssid: string; upstreamUrl: string };
  errors?: SettingsErrors;
  /** One line at the top: the result of the last form post. */
  notice?: { kind: "ok" | "error"; text: string };
  scenario?: ScenarioName;
}

function field(name: keyof Settings, label: string, input: string, errors?: SettingsErrors): string {
  const error = errors?.[name];
  return `<label for="${name}">${label}</label>${input}${
    error ? `<p class="error" id="${name}-error" role="alert">${e(error)}</p>` : ""
  }`;
}

export function renderPage(v: PageView): string {
  const ssid = v.typed?.ssid ?? v.stored.ssid;
  const url = v.typed?.upstreamUrl ?? v.stored.upstreamUrl;
  const options = SCENARIO_NAMES.map(
    (name) =>
      `<option value="${name}"${name === v.scenario ? " selected" : ""}>${name}: ${e(SCENARIOS[name].summary)}</option>`,
  ).join("");
  const notice = v.notice
    ? `<p class="notice ${v.notice.kind}" id="notice" role="status">${e(v.notice.text)}</p>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tickretry device setup</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1rem auto; max-width: 72rem; padding: 0 1rem; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.05rem; margin-top: 1.5rem; }
section { display: inline-block; vertical-align: top; margin-right: 2rem; }
label { display: block; margin-top: .5rem; } input, select { font: inherit; min-width: 18rem; }
table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd; padding: .15rem .5rem; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.error { color: #a00; margin: .2rem 0; } .notice.ok { color: #060; } .notice.error { color: #a00; font-weight: bold; }
#live { color: #555; }
</style>
</head>
<body>
<h1>tickretry simulated device</h1>
${notice}
<p id="live">waiting for the first status…</p>
<section>
<h2>Setup</h2>
<form method="post" action="/settings" id="settings">
${field("ssid", "Wi-Fi SSID (1 to 32 bytes)", `<input id="ssid" name="ssid" value="${e(ssid)}" autocomplete="off">`, v.errors)}
${field("password", "Password (empty, or 8 to 63 characters)", `<input id="password" name="password" type="password" autocomplete="new-password">`, v.errors)}
${field("upstreamUrl", "Upstream URL (http or https)", `<input id="upstreamUrl" name="upstreamUrl" value="${e(url)}">`, v.errors)}
<p><button type="submit">Save</button></p>
</form>
<p>Stored: SSID <b id="stored-ssid">${e(v.stored.ssid || "(none)")}</b>,
password <b id="stored-password">${v.stored.password ? "set" : "none"}</b>,
upstream <b id="stored-url">${e(v.stored.upstreamUrl)}</b></p>
</section>
<section>
<h2>Faults</h2>
<form method="post" action="/fault/scenario">
<label for="scenario">Upstream scenario</label>
<select id="scenario" name="scenario">${options}</select>
<button type="submit">Switch</button>
</form>
<form method="post" action="/fault/stall">
<label for="stall">Block the main loop for (ms), like a slow flash write</label>
<input id="stall" name="ms" type="number" min="1" max="${MAX_STALL_MS}" value="500">
<button type="submit">Stall</button>
</form>
<form method="post" action="/upload"><p><button type="submit">Upload now</button></p></form>
<form method="post" action="/loop/reset"><p><button type="submit">Reset loop maxima</button></p></form>
<form method="post" action="/power/reboot"><p><button type="submit">Reboot</button></p></form>
<form method="post" action="/power/sleep">
<label for="sleep">Deep sleep for (s), then restore</label>
<input id="sleep" name="s" type="number" min="1" max="${MAX_SLEEP_S}" value="5">
<button type="submit">Deep sleep</button>
</form>
</section>
<h2>Device</h2>
<table id="device"><tbody></tbody></table>
<h2>Operations</h2>
<table id="operations">
<thead><tr><th>op id</th><th>state</th><th>attempt</th><th>next attempt in</th><th>attempt times out in</th><th>deadline in</th><th>last outcome</th><th>last answer</th><th>end reason</th></tr></thead>
<tbody></tbody>
</table>
<h2>Recently ended</h2>
<table id="recent">
<thead><tr><th>op id</th><th>end reason</th><th>attempts</th><th>last outcome</th><th>last answer</th><th>took</th></tr></thead>
<tbody></tbody>
</table>
<h2>Counters</h2>
<table id="counters"><tbody></tbody></table>
<script src="/page.js"></script>
</body>
</html>
`;
}
