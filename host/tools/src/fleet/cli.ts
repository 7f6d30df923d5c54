// `tickretry fleet`: runs the outage-recovery experiment and prints the table, the JSON
// rows or an HTML report. Bad arguments exit with code 2 and say what was wrong.
import { progress } from "../progress.js";
import { HUGE_PAGES_FROM, inHugePages } from "../huge-pages.js";
import { choiceArg, integerArg, parseOptions, planOrExit, UsageError } from "../usage.js";
import type { ExperimentResult } from "./experiment.js";
import { OUTAGE_DEVICE, PERSISTING_DEVICE, devicesThatFit, fitReason, type DeviceCost } from "./fits.js";
import { SMALL_TABLE_DEVICE_SECONDS, defaultThreads, runExperimentParallel } from "./parallel.js";
import { writeReport } from "./report.js";
import {
  experimentSettings,
  parseCapacity,
  parseGap,
  parsePowerCut,
  type FleetSettings,
} from "./settings.js";
import { create } from "tickretry";
import { applyStrategy, loadStrategy, STRATEGIES, withBoot, type Strategy } from "./strategies.js";
import { formatTable } from "./table.js";
import { runBrokerCli } from "./broker/cli.js";
import { BROKER_DEVICES } from "./broker/settings.js";

const HELP = `usage: tickretry fleet [options]

Runs the outage-recovery experiment (docs/fleet.md): every device runs
host/library/build/tickretry.wasm in virtual time (its state block swapped through one module
instance per thread) against a synthetic dependency that freezes at 8.5 s, resumes at 10 s
at half capacity and is whole again at 15 s.

options:
  --devices N            devices (default 200); up to what this machine holds (a
                           larger N is refused at once with that number); from
                           ${HUGE_PAGES_FROM.toLocaleString("en")} on, the run goes on in a second process with
                           glibc's huge pages (docs/fleet.md, Speed)
  --capacity W:MS:Q      the dependency when healthy: W workers, MS ms a request, a
                           queue of Q (503 beyond it); half the workers from 10 s to
                           15 s. Default: 10 workers of 40 ms and a queue of 100 per 200
                           devices, workers and queue scaled with N / 200 (rounded, at
                           least 1), so every fleet size meets the same load per device
  --seeds LIST           comma-separated seeds (default 42); several give mean (min..max)
  --scenario NAME        outage (default: this experiment) or broker-restart (sessions
                           reconnecting to a restarted broker whose CPU grows with N / ${BROKER_DEVICES.toLocaleString("en")}
                           like the dependency's workers: --scenario broker-restart -h)
  --strategies LIST      of A,B,C,D,S (default A,B,C,D, with --power-cut also S; none when
                           --policy is given) A immediate retry, B backoff 200/400/800 ms,
                           C B with full jitter, D C with a 10% retry budget, S C with a
                           3 s recovery spread (first attempts and restores)
  --policy FILE          a strategy from a JSON file (repeatable):
                           {"name": "E", "policy": {"jitter": "EQUAL"}, "budget": {...}}
  --arrivals MODEL       open (default): each device's upload timer begins an operation
                           at every tick, whether or not earlier ones have ended (up to
                           16 at once; begins refused with TABLE_FULL are counted);
                           closed: one operation at a time, think, begin, wait for its end
  --interval KIND:MS     open: upload timer interval, exp, uniform or fixed, mean MS
                           (default exp:2000)
  --think KIND:MS        closed: think time, exp, uniform or fixed, mean MS (default exp:1960)
  --duration MS          devices begin operations until MS (default 30000)
  --power-cut AT:MS      every device loses power at AT ms and boots MS later; each
                           strategy runs once per --boot mode; adds the uploads pending
                           at the cut, the share of them that succeeded, and the 100 ms
                           peak after power returns
  --boot LIST            with --power-cut, of restore (the saved image, elapsed the time
                           since the save), restore-no-clock (elapsed 0) and afresh
                           (every pending upload begun again) (default restore,afresh)
  --clocks MODE          device tick counters: wrap (default), zero or random
  --ties MODE            events at the same ms: fifo (default) or random
  --recovery-threshold X success share of the dependency's answers per 100 ms that
                           counts as recovered (default 0.95)
  --recovery-latency MS  mean time in the dependency of those answers that counts as
                           recovered (default 200)
  --threads N            threads for the runs (seeds x strategies): this one and N - 1
                           workers (default one per core, here ${defaultThreads()}; one for a table under
                           ${SMALL_TABLE_DEVICE_SECONDS.toLocaleString("en")} device-seconds, where the workers' start-up in a new
                           process costs more than they save); the rows are the same for
                           any N
  --json                 print the rows as JSON instead of the table
  --series               with --json, each row also carries requestsPer100ms: the
                           requests sent in every 100 ms of its first seed's run
  --report FILE          also write an HTML report with charts
  -h, --help             this text
`;

interface Plan {
  settings: FleetSettings;
  strategies: Strategy[];
  seeds: number[];
  json: boolean;
  series: boolean;
  report?: string;
  threads: number;
}

function parseFleetOptions(args: string[]) {
  return parseOptions(args, {
    devices: { type: "string", default: "200" },
    seeds: { type: "string", default: "42" },
    strategies: { type: "string" },
    policy: { type: "string", multiple: true, default: [] },
    arrivals: { type: "string", default: "open" },
    interval: { type: "string", default: "exp:2000" },
    think: { type: "string", default: "exp:1960" },
    duration: { type: "string", default: "30000" },
    "power-cut": { type: "string" },
    capacity: { type: "string" },
    boot: { type: "string", default: "restore,afresh" },
    clocks: { type: "string", default: "wrap" },
    ties: { type: "string", default: "fifo" },
    "recovery-threshold": { type: "string", default: "0.95" },
    "recovery-latency": { type: "string", default: "200" },
    threads: { type: "string" },
    json: { type: "boolean", default: false },
    series: { type: "boolean", default: false },
    report: { type: "string" },
    scenario: { type: "string", default: "outage" },
    help: { type: "boolean", short: "h", default: false },
  });
}

type FleetOptions = ReturnType<typeof parseFleetOptions>;

/** A message of what is wrong, as a usage error: the settings' own checks name the option. */
function asUsage<T>(make: () => T): T {
  try {
    return make();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** What a device of this run holds: more when it persists for a power cut. */
function deviceCost(v: FleetOptions): DeviceCost {
  return v["power-cut"] === undefined ? OUTAGE_DEVICE : PERSISTING_DEVICE;
}

/** The fleet, its clocks, its arrivals, its power cut and its recovery from the options. */
function fleetSettings(v: FleetOptions): FleetSettings {
  const cost = deviceCost(v);
  const devices = integerArg("devices", v.devices, 1, devicesThatFit(cost), fitReason(cost));
  const capacity = v.capacity;
  const settings = asUsage(() =>
    experimentSettings(devices, capacity === undefined ? undefined : parseCapacity(capacity)),
  );
  settings.durationMs = integerArg("duration", v.duration, 1000, 3_600_000);
  settings.clocks = choiceArg("clocks", v.clocks, ["wrap", "zero", "random"] as const);
  settings.ties = choiceArg("ties", v.ties, ["fifo", "random"] as const);
  settings.arrivals = choiceArg("arrivals", v.arrivals, ["open", "closed"] as const);
  asUsage(() => {
    settings.interval = parseGap("interval", v.interval);
    settings.think = parseGap("think", v.think);
    if (v["power-cut"] !== undefined) settings.powerCut = parsePowerCut(v["power-cut"]);
  });
  const threshold = Number(v["recovery-threshold"]);
  if (!(threshold > 0 && threshold <= 1)) {
    throw new UsageError(`--recovery-threshold "${v["recovery-threshold"]}": want a number in (0, 1]`);
  }
  settings.recovery.threshold = threshold;
  settings.recovery.maxLatencyMs = integerArg("recovery-latency", v["recovery-latency"], 1);
  return settings;
}

/** The named strategies, then each --policy file's, which the module has accepted. */
function chosenStrategies(v: FleetOptions, settings: FleetSettings): Strategy[] {
  const names = v.strategies ?? (v.policy.length > 0 ? "" : settings.powerCut ? "A,B,C,D,S" : "A,B,C,D");
  const strategies = names
    .split(",")
    .filter((n) => n !== "")
    .map((n) => {
      const s = STRATEGIES[n.trim().toUpperCase()];
      if (!s)
        throw new UsageError(`--strategies: unknown strategy "${n}"; known: ${Object.keys(STRATEGIES)}`);
      return s;
    });
  for (const file of v.policy) {
    try {
      const strategy = loadStrategy(file);
      // The module is the judge of a policy: apply it once to a scratch instance.
      applyStrategy(create(), strategy);
      strategies.push(strategy);
    } catch (e) {
      throw new UsageError(`--policy ${file}: ${(e as Error).message}`);
    }
  }
  if (strategies.length === 0) throw new UsageError("no strategy to run: give --strategies or --policy");
  return strategies;
}

function plan(args: string[]): Plan | "help" {
  const v = parseFleetOptions(args);
  if (v.scenario !== "outage")
    throw new UsageError(`--scenario "${v.scenario}": want outage or broker-restart`);
  if (v.help) return "help";
  const settings = fleetSettings(v);
  const seeds = v.seeds.split(",").map((s) => integerArg("seeds", s.trim(), 0, 2 ** 32 - 1));
  const strategies = chosenStrategies(v, settings);
  const cut = settings.powerCut;
  if (cut && cut.atMs + cut.outageMs >= settings.durationMs) {
    throw new UsageError(
      `--power-cut "${v["power-cut"]}": power must come back before --duration (${settings.durationMs} ms)`,
    );
  }
  const boots = v.boot
    .split(",")
    .map((b) => choiceArg("boot", b.trim(), ["restore", "restore-no-clock", "afresh"] as const));
  const runs = cut ? strategies.flatMap((s) => boots.map((b) => withBoot(s, b))) : strategies;
  // Each thread holds a fleet of its own: no more threads than the machine holds fleets.
  const fleets = Math.floor(devicesThatFit(deviceCost(v)) / settings.devices);
  const deviceSeconds = (settings.devices * settings.durationMs * runs.length * seeds.length) / 1000;
  const asked =
    v.threads === undefined ? defaultThreads(deviceSeconds) : integerArg("threads", v.threads, 1, 64);
  const threads = Math.max(1, Math.min(asked, fleets));
  return { settings, strategies: runs, seeds, json: v.json, series: v.series, report: v.report, threads };
}

/** The rows --json prints; with `series`, each carries its first seed's requests per 100 ms. */
function jsonRows(e: ExperimentResult, series: boolean): object[] {
  return e.results.map(({ summary: { seeds, min, max, ...row }, timeline }) => ({
    ...(seeds > 1 ? { ...row, seeds, min, max } : row),
    ...(series && { requestsPer100ms: timeline.requests }),
  }));
}

export async function run(args: string[]): Promise<number> {
  const scenario = args.indexOf("--scenario");
  if (scenario >= 0 && args[scenario + 1] === "broker-restart") return runBrokerCli(args);
  const planned = planOrExit("fleet", HELP, plan, args);
  if ("exit" in planned) return planned.exit;
  const p = planned.plan;
  const relaunched = inHugePages(p.settings.devices);
  if (relaunched) return relaunched;
  const bar = progress("fleet");
  const runs = p.strategies.length * p.seeds.length;
  const experiment = await runExperimentParallel(p.settings, p.strategies, p.seeds, p.threads, (done) =>
    bar.update(done / runs),
  );
  bar.stop();
  console.log(p.json ? JSON.stringify(jsonRows(experiment, p.series), null, 2) : formatTable(experiment));
  if (p.report) {
    await writeReport(p.report, experiment);
    if (!p.json) console.log(`report: ${p.report}`);
  }
  return 0;
}
