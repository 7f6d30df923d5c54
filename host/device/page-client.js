// The setup page's live part: polls /status.json and redraws the tables in place, so the
// status changes without a reload. Every value goes in through textContent (no HTML).
const POLL_MS = 500;
let polls = 0;

function row(cells, numeric = []) {
  const tr = document.createElement("tr");
  cells.forEach((value, i) => {
    const td = document.createElement("td");
    td.textContent = value === null || value === undefined ? "–" : String(value);
    if (numeric.includes(i)) td.className = "n";
    tr.append(td);
  });
  return tr;
}

function fill(tableId, rows) {
  document.querySelector(`#${tableId} tbody`).replaceChildren(...rows);
}

const ms = (v) => (v === null ? null : `${Math.max(0, Math.round(v))} ms`);
const hex = (n) => `0x${n.toString(16).padStart(8, "0")}`;

function render(s) {
  const loop = s.loop;
  const up = s.upstream;
  fill("device", [
    row(["tick", `${s.tick.now} (${hex(s.tick.now)})`]),
    row(["tick wraps", s.tick.wraps]),
    row([
      "loop gap: last / p99 / max / max after a stall",
      `${loop.lastGapMs.toFixed(1)} / ${loop.p99GapMs} / ${loop.maxGapMs.toFixed(1)} / ${loop.maxStalledGapMs.toFixed(1)} ms`,
    ]),
    row(["loop passes / stalls", `${loop.passes} / ${loop.stalls}`]),
    row([
      "retry budget",
      s.budget.name === "off" ? "off" : `${(s.budget.tokensMilli / 1000).toFixed(1)} tokens`,
    ]),
    row([
      "requests started / abandoned after timeout",
      `${s.host.requestsStarted} / ${s.host.requestsAbandoned}`,
    ]),
    row([
      "readings waiting for a slot / dropped (queue full)",
      `${s.readings.queued} of ${s.readings.queueLimit} / ${s.readings.dropped}`,
    ]),
    row([
      "state file: writes / per operation / bytes (image)",
      `${s.store.writes} / ${s.store.writesPerOperation === null ? "–" : s.store.writesPerOperation.toFixed(2)} / ` +
        `${s.store.bytes} (${s.store.imageBytes}) in ${s.store.where}`,
    ]),
    row([
      "power",
      s.power.asleepForMs !== null
        ? `deep sleep, waking in ${Math.ceil(s.power.asleepForMs / 1000)} s`
        : `boot ${s.power.count}: ${s.power.kind}, image waited ${s.power.elapsedMs} ms, ` +
          `${s.power.restoredOperations} operations and ${s.power.restoredQueued} readings restored`,
    ]),
    row([
      "upstream",
      up
        ? `${up.scenario}: ${up.requests} requests, ${up.stored} stored, ${up.replays} replays, ${up.resets} resets, ${up.holding} held`
        : s.settings.upstreamUrl,
    ]),
  ]);
  fill(
    "operations",
    s.operations.map((o) =>
      row(
        [
          o.operationId,
          o.state,
          `${o.attempt} / ${o.maxAttempts}`,
          ms(o.nextAttemptInMs),
          ms(o.attemptTimeoutInMs),
          ms(o.deadlineInMs),
          o.lastOutcome,
          o.detail,
          o.endReason,
        ],
        [0, 3, 4, 5],
      ),
    ),
  );
  fill(
    "recent",
    s.recent.map((r) =>
      row([r.operationId, r.endReason, r.attempts, r.lastOutcome, r.detail, ms(r.tookMs)], [0, 2, 5]),
    ),
  );
  fill(
    "counters",
    Object.entries(s.counters).map(([name, value]) => row([name, value], [1])),
  );
  document.getElementById("stored-ssid").textContent = s.settings.ssid || "(none)";
  document.getElementById("stored-password").textContent = s.settings.passwordSet ? "set" : "none";
  document.getElementById("stored-url").textContent = s.settings.upstreamUrl;
}

async function poll() {
  const live = document.getElementById("live");
  try {
    const res = await fetch("/status.json", { cache: "no-store" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    render(await res.json());
    polls++;
    live.textContent = `live: updated ${new Date().toLocaleTimeString()} (${polls} updates)`;
  } catch (err) {
    live.textContent = `status unavailable: ${err.message}`;
  }
  setTimeout(poll, POLL_MS);
}

poll();
