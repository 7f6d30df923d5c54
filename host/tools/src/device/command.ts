// `tickretry device` (and `npm start`): runs the simulated device with its setup page and
// the flaky upstream until Ctrl-C. The device keeps its state in a file, as a board in its
// flash, so the next run goes on with the operations and readings this one left, and says
// so in its second line; a state left by a run of another scenario or transport is refused
// unless --resume (run-note.ts).
import { readCommandLine, startOrReport, untilStopped } from "../long-running.js";
import { numberOption } from "../number-option.js";
import { SCENARIOS, SCENARIO_NAMES, isScenarioName, unknownScenario } from "../upstream/scenarios.js";
import { parseOptions } from "../usage.js";
import { DEFAULT_PORT } from "./page/listen.js";
import type { EndedOperation } from "./app/readings.js";
import { endReasonName, outcomeName } from "tickretry";
import { BROKER, UPLOAD, UPLOAD_POLICY, scaled, type BudgetName } from "./policies.js";
import { READINGS } from "./generated/app-config.js";
import { mqttOptions } from "./link/mqtt-options.js";
import { MAX_STALL_MS } from "./app/requests.js";
import { CRASH_POINTS, parseCrashAt } from "./app/kept.js";
import { fileLog } from "./app/readings.js";
import { startSimulation, type Simulation } from "./simulation.js";
import { fileStore, memoryStore } from "./app/kept.js";
import { describeRun, readRunNote, refusal, writeRunNote, type RunNote } from "./run-note.js";
import { existsSync } from "node:fs";
import { DEFAULT_TICK_START } from "./tick.js";

const DEFAULT_STATE = "out/device-state.json";

/** Demo speed unless asked otherwise: a reading a minute leaves a page with little to watch. */
const DEFAULT_DEMO_SPEED = 20;

const HELP = `usage: tickretry device [options]   (npm start -- [options])

Runs a simulated device: its firmware-shaped main loop retries sensor uploads through
tickretry against a flaky upstream on loopback, and serves a setup page with live status.

options:
  --port N          setup page port (default ${DEFAULT_PORT} or the next free one; 0: any free port)
  --host ADDR       address the setup page binds (default 127.0.0.1)
  --scenario NAME   upstream scenario at start (default flaky); switchable on the page
  --demo-speed N    take readings N times as often as the firmware (default ${DEFAULT_DEMO_SPEED}: every
                    ${READINGS.everyMs / DEFAULT_DEMO_SPEED} ms instead of ${READINGS.everyMs}; 1: the firmware's pace)
  --upload-every MS take a reading every MS ms instead (0: only when asked)
  --budget NAME     retry budget: firmware (boards/app/config.json's, default), aws (AWS SDK
                    standard mode) or off
  --scale X         multiply every span of the retry policy by X (default 1)
  --tick-start N    the first tick (default ${DEFAULT_TICK_START}: the tick wraps after 20 s)
  --stall-ms MS     block the main loop for MS ms (a slow flash write) ...
  --stall-every S   ... every S seconds (default 10)
  --seed N          module seed (default random, as a board seeds from its RNG)
  --upstream-port N upstream port (default 0: any free port)
  --upstream-url U  upload to an upstream that runs elsewhere (tickretry upstream) instead
  --transport T     http (default) or mqtt: each reading a QoS 1 publish through a broker
  --broker URL      with --transport mqtt: the broker (mqtt://[user:password@]host:port);
                    default: an embedded aedes broker on loopback, with a consumer
  --state FILE      the state file standing in for NVS (default ${DEFAULT_STATE}; none: memory only)
  --resume          go on from the state file even when a run of another scenario or
                    transport left it (refused otherwise; remove the file to start afresh)
  --log FILE        append one JSON line per reading begun, ended or dropped (default: none)
  --crash-at P:N    fault injection: SIGKILL itself the Nth time the pass reaches point P:
${Object.entries(CRASH_POINTS)
  .map(([p, what]) => `                      ${p} (${what})`)
  .join("\n")}
  --quiet           no line per ended operation
  -h, --help        this text

upstream scenarios:
${SCENARIO_NAMES.map((n) => `  ${n.padEnd(10)} ${SCENARIOS[n].summary}`).join("\n")}
`;

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** The command line's values, or "help"; throws what parseArgs refuses. */
function parse(args: string[]) {
  const values = parseOptions(args, {
    port: { type: "string" },
    host: { type: "string" },
    scenario: { type: "string" },
    "upload-every": { type: "string" },
    "demo-speed": { type: "string" },
    budget: { type: "string" },
    scale: { type: "string" },
    "tick-start": { type: "string" },
    "stall-ms": { type: "string" },
    "stall-every": { type: "string" },
    seed: { type: "string" },
    "upstream-port": { type: "string" },
    "upstream-url": { type: "string" },
    transport: { type: "string" },
    broker: { type: "string" },
    state: { type: "string" },
    log: { type: "string" },
    "crash-at": { type: "string" },
    resume: { type: "boolean" },
    quiet: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  return values.help ? "help" : values;
}

/** The reading period: the firmware's sped up by --demo-speed, or --upload-every's (not both). */
function readingPeriod(values: { "demo-speed"?: string; "upload-every"?: string }) {
  const every = numberOption("upload-every", values["upload-every"], 0, 2 ** 31 - 1);
  const speed = numberOption("demo-speed", values["demo-speed"], 1, 1000, false);
  if (every !== undefined && speed !== undefined) {
    throw new Error("--upload-every sets the period itself; not with --demo-speed");
  }
  if (every !== undefined) return { uploadEveryMs: every };
  const demoSpeed = speed ?? DEFAULT_DEMO_SPEED;
  return { uploadEveryMs: Math.round(READINGS.everyMs / demoSpeed), demoSpeed };
}

/** The store, claimed (fileStore takes its lock), and what the last run left in it: a
 * state left by a run of another scenario or transport is refused unless `resume`. */
function stateStore(state: string, resume: boolean, run: RunNote) {
  if (state === "none") return { store: memoryStore(), previousRun: undefined };
  const store = fileStore(state);
  const previousRun = existsSync(state) ? readRunNote(state) : undefined;
  const refused = resume ? undefined : refusal(state, previousRun, run);
  if (refused !== undefined) throw new Error(refused);
  writeRunNote(state, run);
  return { store, previousRun };
}

/** What this start is for, as the next start compares it (run-note.ts). */
function runNote(values: { scenario?: string; "upstream-url"?: string; transport?: string }): RunNote {
  if (values.transport === "mqtt") return { scenario: "none", transport: "mqtt" };
  const url = values["upstream-url"];
  return {
    scenario: url === undefined ? (values.scenario ?? "flaky") : `elsewhere (${url})`,
    transport: "http",
  };
}

/** What the values ask for, checked: a bad value throws, naming the option. */
function deviceOptions(values: Exclude<ReturnType<typeof parse>, "help">) {
  const scenario = values.scenario ?? "flaky";
  if (!isScenarioName(scenario)) throw new Error(unknownScenario(scenario));
  const budget = values.budget ?? "firmware";
  if (!["firmware", "aws", "off"].includes(budget)) {
    throw new Error(`--budget wants firmware, aws or off, got "${budget}"`);
  }
  const scale = numberOption("scale", values.scale, 0.001, 1000, false) ?? 1;
  if (values.seed !== undefined && !/^[0-9]+$/.test(values.seed)) {
    throw new Error(`--seed wants a decimal integer, got "${values.seed}"`);
  }
  const seed = values.seed === undefined ? undefined : BigInt(values.seed);
  const upstreamUrl = values["upstream-url"];
  if (upstreamUrl !== undefined) {
    if (values.scenario !== undefined || values["upstream-port"] !== undefined) {
      throw new Error(
        "--scenario and --upstream-port set the upstream started here; not with --upstream-url",
      );
    }
    if (!isHttpUrl(upstreamUrl)) {
      throw new Error(`--upstream-url wants an http or https URL, got "${upstreamUrl}"`);
    }
  }
  const mqtt = mqttOptions(values, scaled(BROKER, scale));
  const state = values.state ?? DEFAULT_STATE;
  if (values.resume && state === "none")
    throw new Error("--resume goes on from a state file; not with --state none");
  return {
    port: numberOption("port", values.port, 0, 65535),
    host: values.host,
    scenario,
    ...readingPeriod(values),
    budget: budget as BudgetName,
    policy: scaled(UPLOAD, scale),
    tickStart: numberOption("tick-start", values["tick-start"], 0, 2 ** 32 - 1),
    stallMs: numberOption("stall-ms", values["stall-ms"], 1, MAX_STALL_MS),
    stallEveryMs: (numberOption("stall-every", values["stall-every"], 0.01, 86_400, false) ?? 10) * 1000,
    seed,
    upstreamPort: numberOption("upstream-port", values["upstream-port"], 0, 65535),
    upstreamUrl,
    mqtt,
    ...stateStore(state, values.resume === true, runNote(values)),
    log: values.log === undefined ? undefined : fileLog(values.log),
    crashAt: values["crash-at"] === undefined ? undefined : parseCrashAt(values["crash-at"]),
    onEnd: values.quiet
      ? undefined
      : (e: EndedOperation) =>
          console.log(
            `op ${e.operationId} (reading ${e.reading}) ${endReasonName(e.endReason)} after ${e.attempts} attempt(s) in ` +
              `${Math.round(e.tookMs)} ms; last ${outcomeName(e.lastOutcome)} (${e.detail || "no answer"})`,
          ),
  };
}

/** The banner's second line: what this start took up from the state file, in words. */
function stateLine(sim: Simulation, previousRun: RunNote | undefined): string {
  const boot = sim.device.boot;
  const where = sim.device.kept.store.where;
  if (where === "memory")
    return "state: in memory only (--state none): a new scheduler, nothing kept after this run";
  if (boot.kind !== "restart") return `state file ${where}: nothing stored yet, a new scheduler`;
  return (
    `state file ${where}: RESUMED what the last run${previousRun ? ` (${describeRun(previousRun)})` : ""} ` +
    `left: ${boot.restoredOperations} operation(s), ${boot.restoredQueued} queued reading(s), the password ` +
    `and settings, the stored policy and budget; the image waited ${boot.elapsedMs} ms ` +
    `(remove the file to start afresh)`
  );
}

/** What runs where, what the state file held, the policy in force and the reading period. */
function printBanner(
  sim: Simulation,
  options: { uploadEveryMs: number; demoSpeed?: number; previousRun: RunNote | undefined },
): void {
  const device = sim.device;
  const p = device.kept.policy;
  console.log(`tickretry device: setup page ${sim.url}`);
  console.log(stateLine(sim, options.previousRun));
  console.log(
    sim.mqtt
      ? `broker ${sim.mqtt.transport.brokerUrl} (${sim.mqtt.broker ? "embedded aedes, with a consumer" : "named by --broker"})`
      : sim.upstream
        ? `upstream ${sim.upstream.url} (scenario ${sim.upstream.scenario()})`
        : `upstream ${device.settings.current.upstreamUrl}`,
  );
  console.log(
    `upload policy: ${p.maxAttempts} attempts, ${p.attemptTimeout} ms per attempt, backoff ${p.baseDelay} to ` +
      `${p.maxDelay} ms, deadline ${p.deadline} ms, worst case ${device.running.api.worstCase(UPLOAD_POLICY)} ms; ` +
      `budget ${device.kept.budget}`,
  );
  if (device.settings.refused !== undefined) console.log(`REFUSED ${device.settings.refused}`);
  console.log(
    options.demoSpeed === undefined
      ? `readings: every ${options.uploadEveryMs} ms (--upload-every)`
      : `readings: every ${options.uploadEveryMs} ms: the firmware's ${READINGS.everyMs} ms at --demo-speed ${options.demoSpeed}`,
  );
  console.log("First setup: choose the device password on the page's Setup view; every change needs it.");
  console.log("Ctrl-C stops it.");
}

export async function runDevice(args: string[]): Promise<number> {
  const values = readCommandLine("tickretry device", HELP, () => parse(args));
  if (typeof values === "number") return values;
  let options;
  try {
    options = deviceOptions(values);
  } catch (err) {
    console.error(`tickretry device: ${(err as Error).message}`);
    return 2;
  }

  const sim = await startOrReport("device", () => startSimulation(options));
  if (sim === undefined) return 2;
  const stopped = untilStopped();
  printBanner(sim, options);
  await stopped;
  // Every live operation ends or is kept, with a line each: without a state file it ends
  // CANCELLED (nothing would carry it on); with one it goes on at the next start.
  const device = sim.device;
  if (device.kept.store.where === "memory") device.cancelLive();
  else {
    for (const op of device.uploads.ops.values()) {
      console.log(
        `op ${op.operationId} kept in state file ${device.kept.store.where}: it goes on at the next start`,
      );
    }
  }
  await sim.close();
  return 0;
}
