// The differential scenarios (boards/test/scenarios.json) and their trace under V8. The
// C test program (boards/test/scenarios.c) prints the same trace from the same file,
// through scripts/gen-scenarios.ts, with the device loop in place of runOperations; the
// native tests require the two texts to be identical.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Counter, Jitter, Limit, RestoreFlag } from "./abi.js";
import { SimClock } from "./clock.js";
import { runOperations, formatEvent, type Restart } from "./driver.js";
import { FaultScript, parseFate } from "./faults.js";
import { budgetArgs, policyArgs, type BudgetFields, type JitterName, type PolicyFields } from "./policy.js";
import { instantiate, type TickRetryApi } from "./tickretry.js";

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
  /** Before loop step `step` (after its stall): the image is saved, the instance dropped, a
   * fresh one opened and the image restored into it `elapsed` ticks later, with every
   * answer in flight lost when `attemptsLost` (a reboot) or kept (a module swap). */
  restores?: ScenarioRestore[];
}

export interface ScenarioRestore {
  step: number;
  elapsed: number;
  attemptsLost: boolean;
}

/** The trace line of a restore: the image's length and CRC (its last four bytes), so
 * that every engine is seen to write the same image. */
export function restoreNote(
  image: Uint8Array,
  elapsed: number,
  attemptsLost: boolean,
  result: number,
): string {
  const n = image.length;
  const crc =
    n >= 4 ? (image[n - 4] | (image[n - 3] << 8) | (image[n - 2] << 16) | (image[n - 1] << 24)) >>> 0 : 0;
  return (
    `restore bytes=${n} crc=${crc.toString(16).padStart(8, "0")} elapsed=${elapsed} ` +
    `lost=${attemptsLost ? 1 : 0} -> ${result}`
  );
}

/** Saves `api` at now, moves the clock on by `elapsed` and restores the image into a
 * fresh instance: the instance to go on with, and the trace line. */
function restartInstance(api: TickRetryApi, clock: SimClock, r: ScenarioRestore): Restart {
  const length = api.save(clock.now);
  if (length < 0) throw new Error(`save refused: ${length}`);
  const image = new Uint8Array(api.memory.buffer, api.imageAddress(), length).slice();
  const fresh = instantiate();
  clock.stall(r.elapsed);
  new Uint8Array(fresh.memory.buffer).set(image, fresh.imageAddress());
  const flags = r.attemptsLost ? RestoreFlag.ATTEMPTS_LOST : 0;
  const result = fresh.restore(length, clock.now, r.elapsed, flags);
  return {
    api: fresh,
    attemptsLost: r.attemptsLost,
    note: restoreNote(image, r.elapsed, r.attemptsLost, result),
  };
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
    for (const r of s.restores ?? []) {
      if (!Number.isInteger(r.step) || r.step < 0 || !(r.elapsed >= 0 && r.elapsed <= Limit.MAX_SPAN)) {
        throw new Error(`${s.name}: a restore needs a step and an elapsed time of 0 to MAX_SPAN ticks`);
      }
    }
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
  const ids: number[] = []; // read at begin, as the C twin does: ended operations are released
  const recording: TickRetryApi = {
    ...api,
    begin: (p, now) => {
      const h = api.begin(p, now);
      ids.push(api.operationId(h));
      return h;
    },
  };
  let current = api; // the instance in use, after any restore
  const trace = runOperations(recording, new SimClock(s.start), {
    operations: s.scripts.map((fates) => ({ policy: 0, script: new FaultScript(fates) })),
    beforeStep: (clock, step) => {
      for (const stall of s.stalls ?? []) if (stall.step === step) clock.stall(stall.ticks);
    },
    restart: (running, clock, step) => {
      const r = s.restores?.find((x) => x.step === step);
      if (!r) return undefined;
      const next = restartInstance(running, clock, r);
      current = next.api;
      return next;
    },
  });
  lines.push(...trace.map(formatEvent));
  lines.push(`ids ${ids.join(" ")}`);
  const counters = Array.from({ length: Counter.COUNT }, (_, id) => current.counter(id));
  lines.push(`counters ${counters.join(" ")} tokens ${current.tokens()}`);
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
