// The policy playground: the device's own module (/tickretry.wasm, loaded through
// @assemblyscript/loader) runs in this browser and answers every question about the
// policy on the form. Nothing here re-implements a rule: waits come from reporting
// failures to the module and reading nextAttemptAt, the worst case from worstCase, a
// refusal from setPolicy/setBudget's own error code. Before the module is asked, a field
// outside the range constants.json gives it (/abi.json) is named with its value and range.
import loader from "/loader.js";
import { drawTimeline } from "/timeline.js";
import { callArgs, cInitializer, fieldsOf, fleetJson } from "/policy-text.js";

const SAMPLES = 200;
const $ = (id) => document.getElementById(id);
const form = $("policy-form");
const [abi, wasm] = await Promise.all([
  fetch("/abi.json").then((r) => r.json()),
  loader.instantiate(fetch("/tickretry.wasm")),
]);
const m = wasm.exports;
const u32 = (v) => v >>> 0;
// The request policy's fields the form has; a session's (stableAfter, spread, the breaker) stay 0 here.
const POLICY_FIELDS = fieldsOf(abi, "setPolicy").filter((f) => form.elements.namedItem(f) !== null);
const BUDGET_FIELDS = fieldsOf(abi, "setBudget");
const { outcome: O, state: S, error: E, field: F } = abi;
const errorName = (code) => Object.keys(E).find((k) => E[k] === code) ?? String(code);

form.elements.jitter.replaceChildren(
  ...Object.keys(abi.jitter).map((name) => {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    option.selected = name === "FULL";
    return option;
  }),
);

/** A field's name in words: its label's. */
const words = (name) => {
  const label = form.elements[name]?.closest("label");
  const text = [...(label?.childNodes ?? [])].find(
    (n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim(),
  );
  return text?.textContent.trim().replace(/\s*\(.*\)$/, "") ?? name;
};

/** The form's numbers, each a plain decimal u32 (the ABI's type), or the first that is not;
 * the budget's in tokens, to the thousandth (the module counts milli-tokens). */
function read() {
  const value = (name) => {
    const text = form.elements[name].value.trim();
    if (!/^[0-9]+$/.test(text) || Number(text) > 0xffffffff)
      throw new Error(`${words(name)}: a whole number from 0 to 4294967295, please`);
    return Number(text);
  };
  const tokens = (name) => {
    const text = form.elements[name].value.trim();
    if (!/^[0-9]{1,7}(\.[0-9]{1,3})?$/.test(text))
      throw new Error(`${words(name)}: a number of tokens, 0 or more, to the thousandth at most, please`);
    return Math.round(Number(text) * 1000);
  };
  const policy = Object.fromEntries(POLICY_FIELDS.map((f) => [f, value(f)]));
  policy.jitter = form.elements.jitter.value;
  policy.idempotent = form.elements.idempotent.checked;
  const budget = Object.fromEntries(BUDGET_FIELDS.map((f) => [f, tokens(f)]));
  budget.refundOnSuccess = form.elements.refundOnSuccess.checked;
  // The form's "capacity 0: off" is the module's flag OFF, with every other field 0 (capacity
  // 0 alone allows no retry).
  budget.off = budget.capacity === 0;
  if (budget.off) for (const f of BUDGET_FIELDS) budget[f] = 0;
  const script = {
    kind: form.elements.script.value,
    failures: value("failures"),
    retryAfter: value("retryAfter"),
    latency: value("latency"),
  };
  return { policy, budget, script };
}

const policyFlags = (p) => abi.jitter[p.jitter] | (p.idempotent ? abi.policyFlag.IDEMPOTENT : 0);
const budgetArgs = (b) => [
  ...BUDGET_FIELDS.map((f) => b[f]),
  b.off ? abi.budgetFlag.OFF : b.refundOnSuccess ? abi.budgetFlag.REFUND_ON_SUCCESS : 0,
];

/** The first field of `values` outside its range, in words ("attempts at most is 300;
 * allowed: 0 to 255"; the budget's in tokens); a max that names another field is that
 * field's value. Null when all fit. */
function rangeProblem(exportName, values) {
  const shown = exportName === "setBudget" ? (v) => v / 1000 : (v) => v;
  for (const p of abi.exports.find((e) => e.name === exportName).params) {
    if (!p.range) continue;
    const [min, max] = p.range;
    const byField = typeof max === "string" && !(max in abi.limit);
    const limit = typeof max === "number" ? max : byField ? values[max] : abi.limit[max];
    const allowed = byField
      ? `${shown(min)} to the ${words(max)} (${shown(limit)})`
      : `${shown(min)} to ${shown(limit)}`;
    const v = values[p.name];
    if (v < min || v > limit) return `${words(p.name)} is ${shown(v)}; allowed: ${allowed}`;
  }
  return null;
}

/** Seeds the module afresh and sets policy 0 (and the budget); the module's refusal, if any. */
function configure(seed, policy, budget) {
  m.init(seed, 0x7e57);
  const p = m.setPolicy(0, ...callArgs(abi, "setPolicy", policy, policyFlags(policy)));
  if (p < 0) return { call: "setPolicy", code: p };
  if (budget) {
    const b = m.setBudget(...budgetArgs(budget));
    if (b < 0) return { call: "setBudget", code: b };
  }
  return null;
}

/** The waits the module draws before each retry when every attempt fails at once (no deadline). */
function waitsOf(seed, policy) {
  configure(seed, { ...policy, deadline: 0 });
  let now = 0;
  const h = m.begin(0, now);
  const waits = [];
  while (m.poll(now) === h) {
    m.report(h, m.field(h, F.ATTEMPT), O.TRANSIENT, 0, now);
    if (m.field(h, F.STATE) !== S.WAITING) break;
    const next = u32(m.field(h, F.NEXT_ATTEMPT_AT));
    waits.push(u32(next - now));
    now = next;
  }
  return waits;
}

/** One operation in virtual time under a failure script: its attempts and end. */
function operation(policy, budget, script) {
  configure(1, policy, budget);
  let now = 0;
  const h = m.begin(0, now);
  const attempts = [];
  let flight = null;
  for (let step = 0; step < 10000; step++) {
    if (flight && flight.answerAt === now) {
      m.report(h, flight.attempt, flight.outcome, flight.retryAfter, now);
      if (flight.row.end === null)
        Object.assign(flight.row, { end: now, outcome: nameOf(O, flight.outcome) });
      flight = null;
    }
    for (let p = m.poll(now); p >= 0; p = m.poll(now)) {
      const attempt = m.field(h, F.ATTEMPT);
      const row = { start: now, end: null, outcome: null };
      attempts.push(row);
      flight = answer(script, attempt, now, row);
    }
    for (const row of attempts)
      if (row.end === null && !(m.field(h, F.STATE) === S.IN_FLIGHT && row === attempts.at(-1)))
        Object.assign(row, { end: now, outcome: "TIMEOUT" });
    if (m.field(h, F.STATE) === S.DONE)
      return { attempts, end: { at: now, reason: nameOf(abi.endReason, m.field(h, F.END_REASON)) } };
    const due = u32(m.nextDue(now));
    let next = due === abi.nextDue.IDLE ? Infinity : now + due;
    if (flight && flight.answerAt !== null) next = Math.min(next, flight.answerAt);
    if (next === Infinity) break;
    now = next;
  }
  return { attempts, end: null };
}

function answer(script, attempt, now, row) {
  const at = now + script.latency;
  const base = { attempt, row, answerAt: at, retryAfter: 0 };
  switch (script.kind) {
    case "fails":
      return { ...base, outcome: attempt <= script.failures ? O.TRANSIENT : O.SUCCESS };
    case "hangs":
      return { ...base, answerAt: null };
    case "throttled":
      return { ...base, outcome: O.THROTTLED, retryAfter: script.retryAfter };
    default:
      return { ...base, outcome: O.AMBIGUOUS };
  }
}

const nameOf = (group, value) => Object.keys(group).find((k) => group[k] === value) ?? String(value);
const NS = "http://www.w3.org/2000/svg";
const svgEl = (name, attrs, text) => {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
};
const fmt = (ms) => (ms >= 10000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`);

function drawWaits(ceilings, spreads) {
  const svg = $("pg-waits");
  const width = Math.max(320, Math.round(svg.getBoundingClientRect().width) || 760);
  const rowH = 20;
  const left = 70;
  const height = 10 + ceilings.length * rowH + 24;
  const top = Math.max(1, ...ceilings, ...spreads.map((s) => s.at(-1) ?? 0));
  const x = (v) => left + (v / top) * (width - left - 80);
  const parts = [];
  ceilings.forEach((c, i) => {
    const y = 10 + i * rowH;
    const s = spreads[i];
    parts.push(svgEl("text", { x: 4, y: y + 13 }, `retry ${i + 1}`));
    if (s.length) {
      parts.push(
        svgEl("rect", {
          x: x(s[0]),
          y: y + 4,
          width: Math.max(1, x(s.at(-1)) - x(s[0])),
          height: 10,
          fill: "#c9dcf7",
          class: "spread",
        }),
      );
      parts.push(svgEl("circle", { cx: x(s[s.length >> 1]), cy: y + 9, r: 3, fill: "#1f6feb" }));
    }
    parts.push(
      svgEl("line", {
        x1: x(c),
        x2: x(c),
        y1: y + 1,
        y2: y + 17,
        stroke: "#1d232b",
        "stroke-width": 2,
        class: "ceiling",
      }),
    );
    parts.push(svgEl("text", { x: x(c) + 5, y: y + 13 }, fmt(c)));
  });
  parts.push(
    svgEl(
      "text",
      { x: left, y: height - 6 },
      `0 … ${fmt(top)}; bar: range of ${SAMPLES} draws, dot: median, line: ceiling`,
    ),
  );
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren(...parts);
}

let current = null;
// The device's policy and budget as /status.json gives them (page.js hands them on; null:
// a board, which does not say), and whether the form holds a draft of the user's.
let device = window.devicePolicy ?? null;
let drafted = false;

/** The form set to the device's policy and budget (the budget's milli-tokens as tokens). */
function fillFrom(p) {
  for (const f of POLICY_FIELDS) form.elements[f].value = String(p[f]);
  form.elements.jitter.value = p.jitter;
  form.elements.idempotent.checked = p.idempotent;
  for (const f of BUDGET_FIELDS) form.elements[f].value = String(p.budget.off ? 0 : p.budget[f] / 1000);
  form.elements.refundOnSuccess.checked = p.budget.refundOnSuccess;
}

/** The fields of `a` that differ from `b`'s, in words. */
const differing = (names, a, b) => names.filter((f) => a[f] !== b[f]).map(words);

/** Says whose policy the form shows, and offers Apply for a draft of the policy. */
function showSource(input) {
  const source = $("pg-source");
  if (device === null) {
    source.textContent = "This device does not tell its policy: the form starts from example values.";
    $("pg-apply").hidden = true;
    return;
  }
  const none = { ...Object.fromEntries(BUDGET_FIELDS.map((f) => [f, 0])), refundOnSuccess: false };
  const budget = device.budget.off ? none : device.budget;
  const policy = differing([...POLICY_FIELDS, "jitter", "idempotent"], input.policy, device);
  const spent = differing([...BUDGET_FIELDS, "refundOnSuccess"], input.budget, budget);
  source.textContent =
    policy.length + spent.length === 0
      ? `The device's policy and its ${device.budget.name} budget, as it runs now.`
      : `A draft, not the device's: ${[...policy, ...spent].join(", ")} differ${policy.length + spent.length > 1 ? "" : "s"}.`;
  $("pg-apply").hidden = policy.length === 0;
}

/** The device's policy came (or changed): the form follows it unless it holds a draft. */
function deviceSaid(p) {
  device = p;
  if (device !== null && !drafted) fillFrom(device);
  if (document.body.dataset.playground === "ready") compute();
}
document.addEventListener("device-policy", (e) => deviceSaid(e.detail));

$("pg-apply").addEventListener("submit", async (e) => {
  e.preventDefault();
  const body = new URLSearchParams();
  for (const f of POLICY_FIELDS) body.set(f, form.elements[f].value.trim());
  body.set("jitter", form.elements.jitter.value);
  if (form.elements.idempotent.checked) body.set("idempotent", "on");
  const password = $("pg-password").value || $("device-password").value;
  const res = await fetch("/policy", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-device-password": password },
    body: body.toString(),
  });
  const answer = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
  $("pg-applied").textContent = answer.ok ? answer.message : answer.error;
  if (answer.ok) drafted = false; // the next status brings the device's policy: the draft's
});
$("pg-reset").addEventListener("click", () => {
  drafted = false;
  if (device !== null) fillFrom(device);
  compute();
});

/** Shows why the form's policy cannot run: the message, and nothing to copy. */
function refuse(text) {
  const error = $("pg-error");
  error.textContent = text;
  error.hidden = false;
  current = null;
}

/** The form's policy and budget checked by the page, then by the module: null when refused. */
function accepted() {
  let input;
  try {
    input = read();
  } catch (e) {
    refuse(e.message);
    return null;
  }
  const { policy, budget } = input;
  const problem = rangeProblem("setPolicy", policy) ?? rangeProblem("setBudget", budget);
  if (problem) return (refuse(problem), null);
  const refused = configure(1, policy, budget);
  if (refused) {
    const name = errorName(refused.code);
    const what = refused.call === "setPolicy" ? "policy" : "budget";
    refuse(`The module refuses this ${what}: ${abi.meaning.error[name] ?? name} (${name}).`);
    return null;
  }
  $("pg-error").hidden = true;
  return input;
}

/** The waits before each retry: their ceilings and the spread of SAMPLES draws, chart and table. */
function showWaits(policy) {
  const ceilings = waitsOf(1, { ...policy, jitter: "NONE" });
  const draws = ceilings.map(() => []);
  for (let s = 1; s <= SAMPLES; s++) waitsOf(s, policy).forEach((w, i) => draws[i].push(w));
  const spreads = draws.map((d) => d.sort((a, b) => a - b));
  drawWaits(ceilings, spreads);
  $("pg-table").tBodies[0].replaceChildren(
    ...ceilings.map((c, i) => {
      const tr = document.createElement("tr");
      for (const v of [i + 1, c, spreads[i][0], spreads[i][spreads[i].length >> 1], spreads[i].at(-1)]) {
        const td = document.createElement("td");
        td.className = "n";
        td.textContent = String(v);
        tr.append(td);
      }
      return tr;
    }),
  );
  return ceilings;
}

/** One operation under the failure script, drawn and told step by step. */
function showOperation(policy, budget, script) {
  const op = operation(policy, budget, script);
  const span = Math.max(1000, op.end ? op.end.at : (op.attempts.at(-1)?.end ?? 1000));
  drawTimeline(
    $("pg-timeline"),
    [{ label: "operation", attempts: op.attempts, end: op.end }],
    span * 1.05,
    "since",
  );
  $("pg-steps").replaceChildren(
    ...op.attempts.map((a, i) => {
      const li = document.createElement("li");
      const wait = i > 0 ? `after a wait of ${a.start - op.attempts[i - 1].end} ms, ` : "";
      li.textContent = `${wait}attempt ${i + 1} at ${a.start} ms: ${a.outcome} at ${a.end} ms`;
      return li;
    }),
    ...(op.end
      ? [
          Object.assign(document.createElement("li"), {
            textContent: `ends ${op.end.reason} at ${op.end.at} ms`,
          }),
        ]
      : []),
  );
}

function compute() {
  const input = accepted();
  if (!input) return;
  const { policy, budget, script } = input;
  current = { policy, budget };
  const worst = m.worstCase(0);
  const ceilings = showWaits(policy);
  showOperation(policy, budget, script);
  $("pg-summary").textContent =
    `At worst an operation takes ${fmt(worst)}, when every attempt times out and every wait reaches ` +
    `its longest; it retries ${ceilings.length} times at most.`;
  showSource(input);
}

async function copy(text) {
  $("copied").textContent = text;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard (a plain-http page on a phone may have none): the text is shown to copy by hand.
  }
}

$("copy-c").addEventListener(
  "click",
  () => current && copy(cInitializer(abi, current.policy, current.budget)),
);
$("copy-json").addEventListener(
  "click",
  () => current && copy(fleetJson(abi, current.policy, current.budget)),
);
let timer;
const later = () => {
  clearTimeout(timer);
  timer = setTimeout(compute, 150);
};
form.addEventListener("input", () => ((drafted = true), later()));
// The charts are drawn at the size they are shown: when the view is, and on a resize. Not
// before: the status view, which a page opens on, loads without the playground's work.
document.querySelector("nav button[data-view=policy]").addEventListener("click", () =>
  setTimeout(() => {
    if (device !== null && !drafted) fillFrom(device);
    compute();
    document.body.dataset.playground = "ready";
  }),
);
window.addEventListener("resize", later);
