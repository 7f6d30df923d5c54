// The differential scenarios (boards/test/scenarios.json) and their trace under V8. The
// C test program (boards/test/scenarios.c) prints the same trace from the same file,
// through scripts/gen-scenarios.ts, with the device loop in place of runOperations; the
// native tests require the two texts to be identical.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BudgetFlag, Counter, Jitter, Limit, PolicyFlag } from "./abi.js";
import { SimClock } from "./clock.js";
import { runOperations, formatEvent } from "./driver.js";
import { FaultScript, parseFate } from "./faults.js";
import type { TickRetryApi } from "./tickretry.js";

export const SCENARIOS_PATH = fileURLToPath(new URL("../boards/test/scenarios.json", import.meta.url));

export interface PolicySpec {
  maxAttempts: number;
  attemptTimeout: number;
  baseDelay: number;
  maxDelay: number;
  throttleBaseDelay?: number;
  deadline?: number;
  jitter: keyof typeof Jitter;
  idempotent?: boolean;
}

export interface BudgetSpec {
  capacity: number;
  initial: number;
  retryCost: number;
  timeoutRetryCost: number;
  threshold: number;
  failureCost: number;
  firstAttemptDeposit: number;
  successDeposit: number;
  refundOnSuccess: boolean;
}

export interface Scenario {
  name: string;
  /** init's (seedLo, seedHi). */
  seed: [number, number];
  /** The first tick. */
  start: number;
  policy: PolicySpec;
  budget?: BudgetSpec;
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

/** setPolicy's arguments after the id, in ABI order. */
export function policyArgs(p: PolicySpec): number[] {
  const flags = Jitter[p.jitter] | (p.idempotent ? PolicyFlag.IDEMPOTENT : 0);
  return [
    p.maxAttempts,
    p.attemptTimeout,
    p.baseDelay,
    p.maxDelay,
    p.throttleBaseDelay ?? 0,
    p.deadline ?? 0,
    flags,
  ];
}

/** setBudget's arguments in ABI order. */
export function budgetArgs(b: BudgetSpec): number[] {
  const flags = b.refundOnSuccess ? BudgetFlag.REFUND_ON_SUCCESS : 0;
  return [
    b.capacity,
    b.initial,
    b.retryCost,
    b.timeoutRetryCost,
    b.threshold,
    b.failureCost,
    b.firstAttemptDeposit,
    b.successDeposit,
    flags,
  ];
}

/** Statuses whose classification both traces print, each with and without Retry-After. */
export const CLASSIFY_STATUSES = [
  -1, 0, 99, 100, 199, 200, 204, 299, 301, 304, 400, 404, 408, 422, 425, 429, 499, 500, 501, 502, 503, 504,
  505, 599, 600,
];

function scenarioLines(api: TickRetryApi, s: Scenario): string[] {
  api.init(...s.seed);
  const policy = api.setPolicy(
    0,
    ...(policyArgs(s.policy) as [number, number, number, number, number, number, number]),
  );
  const budget = s.budget
    ? api.setBudget(
        ...(budgetArgs(s.budget) as [number, number, number, number, number, number, number, number, number]),
      )
    : 0;
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
