// `tickretry device` (and `npm start`): runs the simulated device with its setup page and
// the flaky upstream until Ctrl-C. The device keeps its state in a file, so the next run
// goes on with the operations and readings this one left.
import { readCommandLine, startOrReport, untilStopped } from "../long-running.js";
import { numberOption } from "../number-option.js";
import { SCENARIOS, SCENARIO_NAMES, isScenarioName, unknownScenario } from "../upstream/scenarios.js";
import { parseOptions } from "../usage.js";
import { DEFAULT_PORT } from "./page/listen.js";
import type { EndedOperation } from "./app/readings.js";
import { endReasonName, outcomeName } from "tickretry";
import { BROKER, UPLOAD, UPLOAD_POLICY, scaled, type BudgetName } from "./policies.js";
import { mqttOptions } from "./link/mqtt-options.js";
import { MAX_STALL_MS } from "./app/requests.js";
import { CRASH_POINTS, parseCrashAt } from "./app/kept.js";
import { fileLog } from "./app/readings.js";
import { startSimulation, type Simulation } from "./simulation.js";
import { fileStore, memoryStore } from "./app/kept.js";
import { DEFAULT_TICK_START } from "./tick.js";

const DEFAULT_STATE = "out/device-state.json";

const HELP = `usage: tickretry device [options]   (npm start -- [options])

Runs a simulated device: its firmware-shaped main loop retries sensor uploads through
tickretry against a flaky upstream on loopback, and serves a setup page with live status.

options:
  --port N          setup page port (default ${DEFAULT_PORT} or the next free one; 0: any free port)
  --host ADDR       address the setup page binds (default 127.0.0.1)
  --scenario NAME   upstream scenario at start (default flaky); switchable on the page
  --upload-every MS begin a sensor upload every MS ms (default 3000)
  --budget NAME     retry budget: aws (AWS SDK standard mode, default) or off
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
    quiet: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  return values.help ? "help" : values;
}

/** What the values ask for, checked: a bad value throws, naming the option. */
function deviceOptions(values: Exclude<ReturnType<typeof parse>, "help">) {
  const scenario = values.scenario ?? "flaky";
  if (!isScenarioName(scenario)) throw new Error(unknownScenario(scenario));
  const budget = values.budget ?? "aws";
  if (budget !== "aws" && budget !== "off") throw new Error(`--budget wants aws or off, got "${budget}"`);
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
  return {
    port: numberOption("port", values.port, 0, 65535),
    host: values.host,
    scenario,
    uploadEveryMs: numberOption("upload-every", values["upload-every"], 0, 2 ** 31 - 1),
    budget: budget as BudgetName,
    policy: scaled(UPLOAD, scale),
    tickStart: numberOption("tick-start", values["tick-start"], 0, 2 ** 32 - 1),
    stallMs: numberOption("stall-ms", values["stall-ms"], 1, MAX_STALL_MS),
    stallEveryMs: (numberOption("stall-every", values["stall-every"], 0.01, 86_400, false) ?? 10) * 1000,
    seed,
    upstreamPort: numberOption("upstream-port", values["upstream-port"], 0, 65535),
    upstreamUrl,
    mqtt,
    store: state === "none" ? memoryStore() : fileStore(state),
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

/** What runs where, what the state file held, and the policy in force. */
function printBanner(sim: Simulation): void {
  const device = sim.device;
  const p = device.kept.policy;
  console.log(`tickretry device: setup page ${sim.url}`);
  console.log(
    sim.mqtt
      ? `broker ${sim.mqtt.transport.brokerUrl} (${sim.mqtt.broker ? "embedded aedes, with a consumer" : "named by --broker"})`
      : sim.upstream
        ? `upstream ${sim.upstream.url} (scenario ${sim.upstream.scenario()})`
        : `upstream ${device.settings.current.upstreamUrl}`,
  );
  const boot = device.boot;
  console.log(
    boot.kind === "restart"
      ? `state file ${device.kept.store.where}: restored ${boot.restoredOperations} operation(s) and ` +
          `${boot.restoredQueued} queued reading(s); the image waited ${boot.elapsedMs} ms ` +
          `(the policy and budget are the stored ones)`
      : `state file ${device.kept.store.where}: nothing stored yet, a new scheduler`,
  );
  console.log(
    `upload policy: ${p.maxAttempts} attempts, ${p.attemptTimeout} ms per attempt, backoff ${p.baseDelay} to ` +
      `${p.maxDelay} ms, deadline ${p.deadline} ms, worst case ${device.running.api.worstCase(UPLOAD_POLICY)} ms; ` +
      `budget ${device.kept.budget}`,
  );
  if (device.settings.refused !== undefined) console.log(`REFUSED ${device.settings.refused}`);
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
  printBanner(sim);
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
