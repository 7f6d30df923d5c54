// Draws docs/timeline.svg: three operations run through the real module in virtual time;
// each attempt is a bar coloured by how it ended, each wait the gap before the next one.
import { readFileSync, writeFileSync } from "node:fs";
import { EndReason, Outcome } from "../../host/library/src/generated/abi.js";
import { renderSvg } from "../../host/tools/src/chart.js";
import { nameOf } from "../../host/library/src/names.js";
import { SimClock } from "../../host/library/src/clock.js";
import { runOperations } from "../../host/library/src/driver.js";
import { FaultScript } from "../../host/library/src/faults.js";
import { configure } from "../../host/library/src/policy.js";
import { create } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";

const api = create(42n);
configure(api, "timeline", 0, {
  maxAttempts: 5,
  attemptTimeout: 2000,
  baseDelay: 500,
  maxDelay: 4000,
  throttleBaseDelay: 1000,
  deadline: 12_000,
  jitter: "FULL",
  idempotent: true,
});
const start = 0xffff_e000; // the run crosses the wrap; the chart counts ms from the start
const operations = [
  ["TRANSIENT@300", "HANG", "TRANSIENT@200", "SUCCESS@150"],
  ["THROTTLED@100+RA2500", "AMBIGUOUS@400", "SUCCESS@250"],
  ["HANG"],
].map((fates) => ({ policy: 0, script: new FaultScript(fates) }));
const trace = runOperations(api, new SimClock(start), { operations });

const ms = (t: number) => ticksUntil(start, t);
const opOf = (handle: number) => `operation ${(handle & 15) + 1}`;

type Bar = { op: string; from: number; to: number; kind: string; label: string };
const bars: Bar[] = [];
const attempts = new Map<number, Bar>(); // the latest attempt of each operation
for (const e of trace) {
  if (e.kind === "note" || e.kind === "link-up") continue; // no restores, no sessions in this run
  const op = opOf(e.handle);
  if (e.kind === "start") {
    const previous = attempts.get(e.handle);
    if (previous) bars.push({ op, from: previous.to, to: ms(e.t), kind: "waiting", label: "" });
    // Until a report says otherwise, the attempt runs to its deadline and times out.
    const bar = { op, from: ms(e.t), to: ms(e.attemptDeadline), kind: "TIMEOUT", label: `${e.attempt}` };
    bars.push(bar);
    attempts.set(e.handle, bar);
  } else if (e.kind === "report" && e.result === 0) {
    const bar = attempts.get(e.handle)!;
    bar.to = ms(e.t);
    bar.kind = nameOf(Outcome, e.outcome);
  } else if (e.kind === "end") {
    bars.push({ op, from: ms(e.t), to: ms(e.t), kind: "end", label: nameOf(EndReason, e.reason) });
  }
}

const kinds = ["SUCCESS", "TRANSIENT", "THROTTLED", "AMBIGUOUS", "TIMEOUT", "waiting"];
const svg = await renderSvg({
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  title: "Three operations, one policy: 5 attempts, 2 s timeout, full jitter from 500 ms, 12 s deadline",
  width: 760,
  height: 140,
  data: { values: bars },
  encoding: {
    y: { field: "op", type: "nominal", title: null },
    x: { field: "from", type: "quantitative", title: "ms since begin (the 32-bit tick wraps at 8192 ms)" },
  },
  layer: [
    {
      transform: [{ filter: "datum.kind != 'end'" }],
      mark: { type: "bar", height: 20 },
      encoding: {
        x2: { field: "to" },
        color: {
          field: "kind",
          type: "nominal",
          title: "attempt outcome",
          scale: { domain: kinds, range: ["#4c9a2a", "#f28e2b", "#b07aa1", "#9c755f", "#e15759", "#d9d9d9"] },
        },
      },
    },
    {
      transform: [{ filter: "datum.kind != 'end' && datum.kind != 'waiting'" }],
      mark: { type: "text", align: "left", dx: 3, color: "white", fontWeight: "bold" },
      encoding: { text: { field: "label" } },
    },
    {
      transform: [{ filter: "datum.kind == 'end'" }],
      mark: { type: "text", align: "left", dx: 4 },
      encoding: { text: { field: "label" } },
    },
  ],
});
// `--check` fails when the committed chart is not what the module draws today.
const path = "docs/timeline.svg";
if (process.argv.includes("--check")) {
  if (readFileSync(path, "utf8") !== svg) {
    console.error(`stale: ${path} (run npm run charts)`);
    process.exit(1);
  }
} else {
  writeFileSync(path, svg);
  console.log(`wrote ${path} (${bars.length} bars)`);
}
