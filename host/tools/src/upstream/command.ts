// `tickretry upstream`: the flaky upstream alone, in a process of its own, so a device
// started elsewhere (`tickretry device --upstream-url URL`) can be killed and restarted
// while the upstream and its dedup store live on. It answers the /control/ routes
// (stats, stored uploads, scenario switch) for whoever drives the test.
import { readCommandLine, startOrReport, untilStopped } from "../long-running.js";
import { numberOption } from "../number-option.js";
import { SCENARIOS, SCENARIO_NAMES, isScenarioName, unknownScenario } from "./scenarios.js";
import { parseOptions } from "../usage.js";
import { startUpstream, type UpstreamOptions } from "./server.js";

const HELP = `usage: tickretry upstream [options]

Serves POST /upload on loopback with a scenario's faults, stores each Idempotency-Key once,
and answers GET /control/stats, GET /control/stored (every key with the body stored under
it) and POST /control/scenario (the body is a scenario name). Runs until Ctrl-C.

options:
  --port N         port (default 0: any free port)
  --scenario NAME  scenario at start (default flaky)
  --seed N         seeds the flaky scenario's draws (default 1)
  --latency-ms MS  processing time of a normal answer (default 20)
  -h, --help       this text

scenarios:
${SCENARIO_NAMES.map((n) => `  ${n.padEnd(10)} ${SCENARIOS[n].summary}`).join("\n")}
`;

/** The upstream the arguments ask for, or "help"; throws what is wrong with them. */
function upstreamOptions(args: string[]): UpstreamOptions | "help" {
  const values = parseOptions(args, {
    port: { type: "string" },
    scenario: { type: "string" },
    seed: { type: "string" },
    "latency-ms": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return "help";
  const scenario = values.scenario ?? "flaky";
  if (!isScenarioName(scenario)) throw new Error(unknownScenario(scenario));
  const latencyMs = numberOption("latency-ms", values["latency-ms"], 0, 60_000);
  return {
    port: numberOption("port", values.port, 0, 65535),
    seed: numberOption("seed", values.seed, 0, 2 ** 32 - 1),
    scenario,
    timing: latencyMs === undefined ? {} : { latencyMs },
    control: true,
  };
}

export async function run(args: string[]): Promise<number> {
  const options = readCommandLine("tickretry upstream", HELP, () => upstreamOptions(args));
  if (typeof options === "number") return options;
  const upstream = await startOrReport("upstream", () => startUpstream(options));
  if (upstream === undefined) return 2;
  const stopped = untilStopped();
  console.log(`upstream ${upstream.url} (scenario ${upstream.scenario()})`);
  await stopped;
  await upstream.close();
  return 0;
}
