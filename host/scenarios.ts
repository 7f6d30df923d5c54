// The differential scenarios (boards/test/scenarios.json) and their trace under V8. The
// C test program (boards/test/scenarios.c) prints the same trace from the same file,
// through scripts/gen-scenarios.ts, with the device loop in place of runOperations; the
// native tests require the two texts to be identical.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Counter, Jitter, Limit } from "./abi.js";
import { SimClock } from "./clock.js";
import { runOperations, formatEvent } from "./driver.js";
import { FaultScript, parseFate } from "./faults.js";
import { budgetArgs, policyArgs, type BudgetFields, type JitterName, type PolicyFields } from "./policy.js";
import type { TickRetryApi } from "./tickretry.js";

export const SCENARIOS_PATH = fileURLToPath(new URL("../boards/test/scenarios.json", import.meta.url));

/** A scenario's policy: omitted fields are 0 (no throttle base, no deadline) or false. */
export type PolicySpec = Pick<PolicyFields, "maxAttempts" | "attemptTimeout" | "baseDelay" | "maxDelay"> &
  Partial<PolicyFields> & { jitter: JitterName };

export interface Scenario {
  name: string;
  /** init's (seedLo, seedHi). */
  seed: [number, number];
  /** The first tick. */
  start: number;
  policy: PolicySpec;
  budget?: BudgetFields;
  /** Fate strings, one script per operation (see host/faults.ts). */
  scripts: string[][];
  /** Before loop step `step`, the clock moves on by `ticks`. */
  stalls?: { step: number; ticks: number }[];
}

/** Reads and checks the scenario file (every fate must parse). */
export function loadScenarios(path = SCENARIOS_PATH): Scenario[] {
  const { scenarios } = JSON.parse(readFileSync(path, "utf8")) as { scenarios: Scenario[] };
  for (const s of scenarios) {
    if (!(s.policy.jitter in Jitter)) throw new Error(`${s.name}: unknown jitter ${s.policy.jitter}`);
    if (s.scripts.length < 1 || s.scripts.length > Limit.OPERATIONS) {
      throw new Error(`${s.name}: 1 to ${Limit.OPERATIONS} scripts, one per operation`);
    }
    for (const script of s.scripts) script.forEach(parseFate);
  }
  return scenarios;
}

/** setPolicy's arguments after the id, with the scenario's omitted fields filled in. */
export function scenarioPolicyArgs(p: PolicySpec): ReturnType<typeof policyArgs> {
  return policyArgs({ throttleBaseDelay: 0, deadline: 0, idempotent: false, ...p });
}

/** Statuses whose classification both traces print, each with and without Retry-After. */
export const CLASSIFY_STATUSES = [
  -1, 0, 99, 100, 199, 200, 204, 299, 301, 304, 400, 404, 408, 422, 425, 429, 499, 500, 501, 502, 503, 504,
  505, 599, 600,
];

function scenarioLines(api: TickRetryApi, s: Scenario): string[] {
  api.init(...s.seed);
  const policy = api.setPolicy(0, ...scenarioPolicyArgs(s.policy));
  const budget = s.budget ? api.setBudget(...budgetArgs(s.budget)) : 0;
  const lines = [`== ${s.name}`, `setup policy=${policy} budget=${budget} worst=${api.worstCase(0)}`];
  const handles: number[] = [];
  const recording: TickRetryApi = {
    ...api,
    begin: (p, now) => {
      const h = api.begin(p, now);
      handles.push(h);
      return h;
    },
  };
  const trace = runOperations(recording, new SimClock(s.start), {
    operations: s.scripts.map((fates) => ({ policy: 0, script: new FaultScript(fates) })),
    beforeStep: (clock, step) => {
      for (const stall of s.stalls ?? []) if (stall.step === step) clock.stall(stall.ticks);
    },
  });
  lines.push(...trace.map(formatEvent));
  lines.push(`ids ${handles.map((h) => api.operationId(h)).join(" ")}`);
  const counters = Array.from({ length: Counter.COUNT }, (_, id) => api.counter(id));
  lines.push(`counters ${counters.join(" ")} tokens ${api.tokens()}`);
  return lines;
}

/**
 * The whole trace of one instance: its answers before init, the classification table,
 * then every scenario in order (init wipes the instance between them).
 */
export function traceScenarios(api: TickRetryApi, scenarios: Scenario[]): string {
  const lines = [
    `before-init poll=${api.poll(0)} nextDue=${api.nextDue(0)} begin=${api.begin(0, 0)} tokens=${api.tokens()}`,
    `classify ${CLASSIFY_STATUSES.map((s) => `${s}:${api.classifyHttp(s, 0)},${api.classifyHttp(s, 1)}`).join(" ")}`,
  ];
  for (const s of scenarios) lines.push(...scenarioLines(api, s));
  return lines.join("\n") + "\n";
}
