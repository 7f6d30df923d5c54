// The page's live part: the view tabs, the status polled from /status.json (cards,
// tables, the timeline), and the forms, which post with fetch so that the device password
// goes along (X-Device-Password) and the answer lands on the page. Every value goes in
// through textContent, never as HTML.
import { LiveTimeline, fillLegend } from "/timeline.js";

const POLL_MS = 500;
const SPAN_MS = 30000;
const ROWS = 10;
const $ = (id) => document.getElementById(id);
let filled = false;

// ---- views ----
for (const button of document.querySelectorAll("nav button")) {
  button.addEventListener("click", () => {
    for (const b of document.querySelectorAll("nav button")) {
      b.setAttribute("aria-pressed", String(b === button));
      $(`view-${b.dataset.view}`).hidden = b !== button;
    }
  });
}

// ---- notices and posts ----
/** The banner of the action last taken: it names the action, and the next one clears it
 * at once, so no answer is ever read as another action's. */
function notice(text, kind, action) {
  const p = $("notice");
  p.textContent = action ? `${action}: ${text}` : text;
  p.className = kind;
  p.hidden = false;
}
const clearNotice = () => ($("notice").hidden = true);
/** What a form does, for its banner: its heading, else its button's text. */
const actionOf = (form) =>
  form.closest(".panel")?.querySelector("h2")?.textContent ?? form.querySelector("button")?.textContent ?? "";

function showFieldErrors(form, fields = {}) {
  for (const p of form.querySelectorAll(".error")) {
    const name = p.id.replace(/-error$/, "");
    p.textContent = fields[name] ?? "";
    p.hidden = !fields[name];
  }
}

async function send(path, body, type) {
  const res = await fetch(path, {
    method: "POST",
    headers: { "content-type": type, "x-device-password": $("device-password").value },
    body,
  });
  const answer = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
  return { status: res.status, ...answer };
}

async function submit(form, path, body, type) {
  clearNotice();
  const answer = await send(path, body, type);
  showFieldErrors(form, answer.fields);
  notice(answer.ok ? answer.message : answer.error, answer.ok ? "ok" : "error", actionOf(form));
  if (answer.ok) poll(false);
  return answer;
}

const urlEncoded = (form) => new URLSearchParams(new FormData(form)).toString();
const FORM = "application/x-www-form-urlencoded";

$("settings").addEventListener("submit", (e) => {
  e.preventDefault();
  submit(e.target, "/settings", urlEncoded(e.target), FORM);
});
$("password-setup").addEventListener("submit", async (e) => {
  e.preventDefault();
  const chosen = $("new-device-password").value;
  const answer = await submit(e.target, "/password", urlEncoded(e.target), FORM);
  if (answer.ok) $("device-password").value = chosen;
});
$("unlock").addEventListener("submit", (e) => e.preventDefault());
for (const form of document.querySelectorAll("form[data-action]")) {
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    submit(form, form.dataset.action, urlEncoded(form), FORM);
  });
}
$("module").addEventListener("submit", async (e) => {
  e.preventDefault();
  const file = $("module-file").files[0];
  if (!file) return notice("Choose a signed module first.", "error");
  submit(e.target, "/module", await file.arrayBuffer(), "application/octet-stream");
});

// ---- status ----
// Each poll changes only the text and rows that changed: a whole redraw twice a second was
// most of the page's blocking time on a throttled phone (npm run lighthouse).
const setText = (node, text) => {
  if (node.textContent !== text) node.textContent = text;
};
/** A write of the same value still dirties the element's style (and a text's layout). */
const setHidden = (node, hidden) => {
  if (node.hidden !== hidden) node.hidden = hidden;
};
const ms = (v) => (v === null ? null : `${Math.max(0, Math.round(v))} ms`);
const hex = (n) => `0x${n.toString(16).padStart(8, "0")}`;
const seconds = (v) => (v % 1000 === 0 ? `${v / 1000} s` : `${(v / 1000).toFixed(1)} s`);

/** A table's row for `list`, its cells named by `names` (a phone shows the name beside each). */
function newRow(list, names, numeric) {
  const tr = document.createElement("tr");
  list.forEach((_, i) => {
    const td = document.createElement("td");
    td.dataset.label = names[i];
    if (numeric.includes(i)) td.className = "n";
    tr.append(td);
  });
  return tr;
}

/** The "none" row of an empty table. */
function noneRow(columns) {
  const td = Object.assign(document.createElement("td"), { colSpan: columns, className: "none" });
  td.textContent = "none";
  const tr = document.createElement("tr");
  tr.append(td);
  return tr;
}

/** A table's rows, keyed by their first cell: a row stays where it is and only the cells
 * whose text changed change, so that a poll dirties little of the layout (a rebuild of
 * every row was most of a phone's time per poll); "none" when there are none. */
function fill(id, values, numeric = []) {
  const table = $(id);
  const key = JSON.stringify(values);
  if (table.dataset.key === key) return;
  table.dataset.key = key;
  const names = [...table.tHead.rows[0].cells].map((th) => th.textContent);
  const body = table.tBodies[0];
  const kept = new Map([...body.rows].map((tr) => [tr.dataset.key, tr]));
  values.forEach((list, i) => {
    const rowKey = String(list[0]);
    let tr = kept.get(rowKey);
    if (!tr) (tr = newRow(list, names, numeric)).dataset.key = rowKey;
    if (body.rows[i] !== tr) body.insertBefore(tr, body.rows[i] ?? null);
    list.forEach((v, c) => setText(tr.cells[c], v === null || v === undefined ? "–" : String(v)));
  });
  while (body.rows.length > values.length) body.rows[values.length].remove();
  if (values.length === 0) body.replaceChildren(noneRow(names.length));
  const count = table.closest("details")?.querySelector(".count");
  if (count) setText(count, `(${values.length})`);
}

/** How often a reading is taken, and how that compares with the firmware's period. */
function period(r) {
  if (r.everyMs === 0)
    return ["when asked", `only Upload now takes one (the firmware: every ${seconds(r.firmwareEveryMs)})`];
  if (r.everyMs === r.firmwareEveryMs) return [`every ${seconds(r.everyMs)}`, "the firmware's pace"];
  const factor = Math.round(r.firmwareEveryMs / r.everyMs);
  return [
    `every ${seconds(r.everyMs)}`,
    `the firmware's ${seconds(r.firmwareEveryMs)}, sped up ${factor}x for this demo`,
  ];
}

/** The cards of the loop: tick, gaps, passes, readings, budget, requests, live operations. */
function loopCards(s) {
  const loop = s.loop;
  return [
    ["tick", `${s.tick.now}`, `${hex(s.tick.now)}, wrapped ${s.tick.wraps}×`],
    [
      "gap",
      `${loop.steadyMaxGapMs.toFixed(1)} ms max`,
      `with start-up: max ${loop.maxGapMs.toFixed(0)} ms; p99 ${loop.p99GapMs} ms, last ${loop.lastGapMs.toFixed(1)} ms`,
    ],
    [
      "passes",
      `${loop.passes}`,
      `${loop.stalls} stalls, max after one ${loop.maxStalledGapMs.toFixed(0)} ms`,
    ],
    ["readings", ...period(s.readings)],
    [
      "budget",
      s.budget.on ? `${(s.budget.tokensMilli / 1000).toFixed(1)} tokens` : "off",
      "left; each retry spends some, none left: no retry",
    ],
    ["requests", `${s.host.requestsStarted}`, `${s.host.requestsAbandoned} abandoned after a timeout`],
    [
      "live",
      `${s.operations.length}`,
      `${s.readings.queued} of ${s.readings.queueLimit} readings waiting, ${s.readings.dropped} dropped`,
    ],
  ];
}

/** The cards of power and the kept state (the flash life's premise is the page's own). */
function powerCards(s) {
  const asleep = s.power.asleepForMs !== null;
  return [
    [
      "power",
      asleep ? "asleep" : s.power.kind,
      asleep
        ? `waking in ${Math.ceil(s.power.asleepForMs / 1000)} s`
        : `boot ${s.power.count}, ${s.power.restoredOperations} operations restored after ${s.power.elapsedMs} ms`,
    ],
    [
      "writes",
      `${s.store.writes}`,
      `${s.store.writesPerOperation === null ? "–" : s.store.writesPerOperation.toFixed(2)} per operation, ` +
        `${s.store.bytes} bytes (image ${s.store.imageBytes}) in ${s.store.where}` +
        (s.store.writeFailures > 0 ? `; ${s.store.writeFailures} writes FAILED, retrying` : ""),
    ],
    ["flash", s.store.flashLifeYears === null ? "–" : `${s.store.flashLifeYears.toFixed(1)} years`],
  ];
}

/** The simulator's cards: its consumer and upstream, when it runs them. */
function simulatorCards(s) {
  setHidden($("card-consumer"), !s.consumer);
  setHidden($("card-upstream"), !s.upstream);
  const list = [];
  if (s.consumer) {
    const c = s.consumer;
    list.push([
      "consumer",
      `${c.stored}`,
      `stored; ${c.replays} replays, ${c.duplicates} duplicates, ${c.unparseable} unparseable` +
        `${c.connected ? "" : " (disconnected)"}; broker restarts ${s.broker?.restarts ?? 0}`,
    ]);
  }
  if (s.upstream) {
    const up = s.upstream;
    list.push([
      "upstream",
      s.faults.scenario,
      `${up.requests} requests, ${up.stored} stored (${up.evicted} oldest evicted), ${up.replays} replays`,
    ]);
  }
  return list;
}

function cards(s) {
  for (const [id, value, more] of [...loopCards(s), ...powerCards(s), ...simulatorCards(s)]) {
    const card = $(`card-${id}`);
    setText(card.children[1], value);
    if (more !== undefined) setText(card.children[2], more);
  }
}

// The timeline's memory: every operation seen in the events, by operation id, and the
// boots and sleeps. Times are the device's RTC (wallMs), which runs on through reboots
// and sleeps; the tick starts again at every boot.
const ops = new Map();
let marks = [];
let lastSeq = 0;

/** One event into the operation it belongs to (a boot or sleep into the marks). */
function absorbEvent(e) {
  if (e.kind === "boot" || e.kind === "sleep") {
    // Power goes: every attempt in flight dies with its connection.
    for (const op of ops.values())
      for (const x of op.attempts) if (x.end === null) Object.assign(x, { end: e.wallMs, outcome: "lost" });
    const sleep = marks.at(-1);
    if (e.kind === "boot" && sleep?.kind === "sleep" && sleep.until === undefined) sleep.until = e.wallMs;
    marks.push({ at: e.wallMs, kind: e.kind });
    return;
  }
  let op = ops.get(e.operationId);
  if (!op) ops.set(e.operationId, (op = { id: e.operationId, attempts: [], end: null }));
  const a = op.attempts.find((x) => x.attempt === e.attempt);
  if (e.kind === "start") op.attempts.push({ attempt: e.attempt, start: e.wallMs, end: null, outcome: null });
  else if (e.kind === "answer" && a && a.end === null)
    Object.assign(a, { end: e.wallMs, outcome: e.outcome });
  else if (e.kind === "timeout" && a && a.end === null)
    Object.assign(a, { end: e.wallMs, outcome: "TIMEOUT" });
  else if (e.kind === "end") op.end = { t: e.wallMs, reason: e.endReason };
}

function absorb(events, now) {
  for (const e of events) {
    if (e.seq <= lastSeq) continue;
    lastSeq = e.seq;
    absorbEvent(e);
  }
  // Forget what has scrolled off the chart.
  if (ops.size > 4 * ROWS) for (const id of [...ops.keys()].slice(0, ops.size - 4 * ROWS)) ops.delete(id);
  marks = marks.filter((m) => (m.until ?? now) >= now - SPAN_MS);
}

const live = new LiveTimeline($("timeline"), SPAN_MS, ROWS);

/** The chart's rows: the last ROWS operations still on it, at the RTC's times. */
function timeline(now) {
  const rows = [...ops.values()].filter((op) => !op.end || op.end.t >= now - SPAN_MS).slice(-ROWS);
  live.update(rows, marks, now);
}

/** The tables of live operations, sessions, ended operations and counters. */
function tables(s) {
  fill(
    "operations",
    s.operations.map((o) => [
      o.operationId,
      o.state,
      `${o.attempt} / ${o.maxAttempts}`,
      ms(o.nextAttemptInMs),
      ms(o.attemptTimeoutInMs),
      ms(o.deadlineInMs),
      o.lastOutcome,
      o.detail,
    ]),
    [0, 3, 4, 5],
  );
  setHidden($("sessions-panel"), s.sessions.length === 0);
  fill(
    "sessions",
    s.sessions.map((v) => [
      v.name,
      v.state,
      v.attempts,
      v.drops,
      v.reconnects,
      ms(v.upForMs),
      ms(v.nextTryInMs),
      v.endReason === "NONE" ? "" : v.endReason,
      v.detail,
    ]),
    [2, 3, 4, 5, 6],
  );
  fill(
    "recent",
    s.recent.map((r) => [r.operationId, r.endReason, r.attempts, r.lastOutcome, r.detail, ms(r.tookMs)]),
    [0, 2, 5],
  );
  fill("counters", Object.entries(s.counters), [1]);
}

/** The setup view: what is stored, which forms apply, and (once) the forms' values. */
function setupView(s) {
  setText($("stored-ssid"), s.settings.ssid || "(none)");
  setText($("stored-password"), s.settings.passwordSet ? "set" : "none");
  setText($("stored-url"), s.settings.upstreamUrl);
  storedBroker(s.settings);
  setHidden($("password-setup"), s.security.devicePasswordSet);
  setHidden($("unlock"), !s.security.devicePasswordSet);
  setHidden($("module-panel"), !s.security.moduleUpload);
  setHidden($("broker-restart"), !s.broker?.embedded);
  // Scenarios and stalls are the simulator's faults; a board has none.
  const scenarios = s.faults.scenarios;
  setHidden($("fault-scenario"), scenarios.length === 0);
  setHidden($("fault-stall"), scenarios.length === 0);
  if (filled) return;
  filled = true;
  $("ssid").value = s.settings.ssid;
  $("upstreamUrl").value = s.settings.upstreamUrl;
  for (const field of BROKER_FIELDS) $(field).value = s.settings[field];
  $("scenario").replaceChildren(
    ...scenarios.map((name) => {
      const option = document.createElement("option");
      option.value = option.textContent = name;
      option.selected = name === s.faults.scenario;
      return option;
    }),
  );
}

/** Hands the device's policy to the Policy view (playground.js) when it changed. */
function announcePolicy(policy = null) {
  if (JSON.stringify(policy) === JSON.stringify(window.devicePolicy ?? null)) return;
  window.devicePolicy = policy;
  document.dispatchEvent(new CustomEvent("device-policy", { detail: policy }));
}

function render(s) {
  setText($("device-name"), s.device.name);
  cards(s);
  absorb(s.events, s.tick.wallMs);
  timeline(s.tick.wallMs);
  tables(s);
  setupView(s);
  announcePolicy(s.policy);
}

// The status as the first answer and every later one make it: a poll since the last seq
// gets the tick, the events and ended operations after it and only the groups that
// changed (docs/device.md), so a group it leaves out stays as it was, counted on by the tick.
let status = null;
const RECENT_SHOWN = 20;

const less = (ms, elapsed) => (ms === null ? null : ms - elapsed);

/** Rows as they stand `elapsed` ms of the device's tick later: a server leaves out a group
 * that only the clock moves (waits, deadlines, up times), and the page counts it on. */
function countedOn(s, elapsed) {
  return {
    operations: s.operations.map((o) => ({
      ...o,
      nextAttemptInMs: less(o.nextAttemptInMs, elapsed),
      attemptTimeoutInMs: less(o.attemptTimeoutInMs, elapsed),
      deadlineInMs: less(o.deadlineInMs, elapsed),
    })),
    sessions: s.sessions.map((v) => ({
      ...v,
      upForMs: v.upForMs === null ? null : v.upForMs + elapsed,
      nextTryInMs: less(v.nextTryInMs, elapsed),
    })),
  };
}

function merge(answer) {
  // A board counts its events from 1 again after a reboot, and then answers in full.
  const restarted = answer.events.length > 0 && answer.events.at(-1).seq < lastSeq;
  if (restarted) lastSeq = 0;
  if (status === null || restarted) return (status = answer);
  // A server that ignores `since` sends every ended operation again: each is kept once.
  const seen = new Set(answer.recent.map((r) => r.seq));
  const recent = [...answer.recent, ...status.recent.filter((r) => !seen.has(r.seq))].slice(0, RECENT_SHOWN);
  const elapsed = (answer.tick.now - status.tick.now) >>> 0;
  return (status = { ...status, ...countedOn(status, elapsed), ...answer, recent });
}

// The broker settings the form edits and the status returns (the password only as set).
const BROKER_FIELDS = ["brokerUrl", "brokerClientId", "brokerUsername", "brokerTopic"];
function storedBroker(settings) {
  setText($("stored-broker"), settings.brokerUrl || "(none)");
  setText($("stored-broker-user"), settings.brokerUsername || "(no user)");
  setText($("stored-broker-password"), settings.brokerPasswordSet ? "set" : "none");
  setText($("stored-broker-topic"), settings.brokerTopic);
}

/** The status; a kept-alive connection the device closed (a reset) is tried once more at once, on a new one. */
async function fetchStatus() {
  const url = `/status.json?since=${lastSeq}`;
  try {
    return await fetch(url, { cache: "no-store" });
  } catch {
    return fetch(url, { cache: "no-store" });
  }
}

/** A local time as HH:MM:SS. Not toLocaleTimeString: its first call loads the locale's
 * data, some 30 ms of a loaded host's main thread, in the first status's task. */
const clock = (d) =>
  [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");

/** What the live region says: the page's link to the device and the device's state, so
 * that a screen reader hears a change (asleep, rebooted, another scenario), not each poll. */
function stateText(s) {
  const power =
    s.power.asleepForMs !== null ? "asleep" : `awake after a ${s.power.kind} (boot ${s.power.count})`;
  const scenario = s.faults.scenario ? `, upstream scenario ${s.faults.scenario}` : "";
  return `live: the device is ${power}${scenario}`;
}

async function poll(again = true) {
  try {
    const res = await fetchStatus();
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const s = merge(await res.json());
    render(s);
    setText($("live"), stateText(s));
    setText($("updated"), `updated ${clock(new Date())}`);
  } catch (err) {
    setText($("live"), `status unavailable: ${err.message}`);
  }
  if (again) setTimeout(poll, POLL_MS);
}

fillLegend($("timeline-legend"));
live.update([], [], 0); // the empty chart at its full height, before the first status
poll();
