// `tickretry fleet --scenario broker-restart`: the broker-restart experiment (run.ts) for
// every strategy of strategies.ts, as a table or JSON rows. Bad arguments exit 2.
import { progress } from "../../progress.js";
import { HUGE_PAGES_FROM, inHugePages } from "../../huge-pages.js";
import { integerArg, parseOptions, planOrExit, UsageError } from "../../usage.js";
import { BROKER_DEVICE, devicesThatFit, fitReason } from "../fits.js";
import { runBrokerRestart, type BrokerRun } from "./run.js";
import { BROKER_DEVICES, brokerSettings, DEFAULT_BROKER_SETTINGS, type BrokerSettings } from "./settings.js";
import { BROKER_STRATEGIES } from "./strategies.js";
import { formatBrokerMarkdown } from "./table.js";
import { writeBrokerReport } from "./report.js";

const D = DEFAULT_BROKER_SETTINGS;

const HELP = `usage: tickretry fleet --scenario broker-restart [options]

N devices each hold one MQTT-like session to a broker whose connect handshake costs far more
CPU than a publish (docs/fleet.md, "A broker restart"). At AT ms the broker restarts: every
session drops, and connects are refused until it is back MS later. Strategies: esp-mqtt's
fixed 10 s, Tasmota's linear growth to 120 s, FreeRTOS backoffAlgorithm's full jitter,
decorrelated jitter by the published formula, and tickretry sessions (full jitter; full
jitter + spread + breaker; decorrelated jitter; overload-aware, without and with the
operator's spread on the drop).

options:
  --devices N            devices (default ${D.devices}); up to what this machine holds (a
                           larger N is refused at once with that number); from
                           ${HUGE_PAGES_FROM.toLocaleString("en")} on, in a second process with huge pages
                           (tickretry fleet -h)
  --broker-cpu MS        the broker's CPU ms per 100 ms bucket (100 per core). Default:
                           ${D.broker.cpuPerBucketMs} per ${BROKER_DEVICES.toLocaleString("en")} devices, scaled with N / ${BROKER_DEVICES.toLocaleString("en")} and at least ${D.broker.cpuPerBucketMs},
                           so every fleet from ${BROKER_DEVICES.toLocaleString("en")} devices on meets the same
                           broker per device
  --seeds LIST           comma-separated seeds (default 42)
  --restart AT:MS        the restart at AT ms, the broker back MS later (default ${D.restartAtMs}:${D.downMs})
  --duration MS          length of the run (default ${D.durationMs})
  --connect-cost MS      broker CPU per connect handshake, ms (default ${D.broker.connectCostMs})
  --json                 print the rows as JSON (one per strategy and seed)
  --series               with --json, each row also carries connectsPer100ms: its run's
                           connect attempts in every 100 ms from the restart on
  --report FILE          also write an HTML report with the table and the chart
  -h, --help             this text
`;

interface Plan {
  settings: BrokerSettings;
  seeds: number[];
  json: boolean;
  series: boolean;
  report?: string;
}

function parseBrokerOptions(args: string[]) {
  return parseOptions(args, {
    scenario: { type: "string" },
    devices: { type: "string", default: `${D.devices}` },
    "broker-cpu": { type: "string" },
    seeds: { type: "string", default: "42" },
    restart: { type: "string", default: `${D.restartAtMs}:${D.downMs}` },
    duration: { type: "string", default: `${D.durationMs}` },
    "connect-cost": { type: "string", default: `${D.broker.connectCostMs}` },
    json: { type: "boolean", default: false },
    series: { type: "boolean", default: false },
    report: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  });
}

type BrokerOptions = ReturnType<typeof parseBrokerOptions>;

/** The fleet and its broker: the scaled default, or --broker-cpu; a handshake must fit in it. */
function fleetAndBroker(v: BrokerOptions): BrokerSettings {
  const devices = integerArg(
    "devices",
    v.devices,
    1,
    devicesThatFit(BROKER_DEVICE),
    fitReason(BROKER_DEVICE),
  );
  const cpu = v["broker-cpu"];
  const settings = brokerSettings(devices, cpu === undefined ? undefined : integerArg("broker-cpu", cpu, 1));
  const connectCostMs = integerArg("connect-cost", v["connect-cost"], 1, 100);
  if (connectCostMs > settings.broker.cpuPerBucketMs) {
    throw new UsageError(
      `--broker-cpu "${cpu}": less than a handshake's ${connectCostMs} ms (--connect-cost): the broker could serve no connect`,
    );
  }
  settings.broker.connectCostMs = connectCostMs;
  return settings;
}

function plan(args: string[]): Plan | "help" {
  const v = parseBrokerOptions(args);
  if (v.help) return "help";
  const m = /^(\d+):(\d+)$/.exec(v.restart);
  if (!m)
    throw new UsageError(
      `--restart "${v.restart}": want AT:MS, the restart at AT ms and the broker back MS later`,
    );
  const durationMs = integerArg("duration", v.duration, 1000, 3_600_000);
  const [restartAtMs, downMs] = [Number(m[1]), Number(m[2])];
  if (restartAtMs + downMs >= durationMs) {
    throw new UsageError(
      `--restart "${v.restart}": the broker must be back before --duration (${durationMs} ms)`,
    );
  }
  const settings = { ...fleetAndBroker(v), restartAtMs, downMs, durationMs };
  const seeds = v.seeds.split(",").map((s) => integerArg("seeds", s.trim(), 0, 2 ** 32 - 1));
  return { settings, seeds, json: v.json, series: v.series, report: v.report };
}

/** Every strategy over every seed: runs[s][k] is strategy s under seeds[k]. `progress`
 * hears the share of the runs done. */
export function runBrokerExperiment(
  settings: BrokerSettings,
  seeds: number[],
  progress?: (share: number) => void,
): BrokerRun[][] {
  const total = BROKER_STRATEGIES.length * seeds.length;
  let done = 0;
  return BROKER_STRATEGIES.map((s) =>
    seeds.map((seed) => {
      const share = (part: number) => progress?.((done + part) / total);
      const run = runBrokerRestart(settings, s, seed, undefined, share);
      share(1);
      done++;
      return run;
    }),
  );
}

export async function runBrokerCli(args: string[]): Promise<number> {
  const planned = planOrExit("fleet --scenario broker-restart", HELP, plan, args);
  if ("exit" in planned) return planned.exit;
  const { settings, seeds, json, series, report } = planned.plan;
  const relaunched = inHugePages(settings.devices);
  if (relaunched) return relaunched;
  const bar = progress("broker-restart");
  const runs = runBrokerExperiment(settings, seeds, (share) => bar.update(share));
  bar.stop();
  if (json) {
    const rows = runs.flatMap((r) =>
      r.map(({ row, attempts }, k) => ({
        ...row,
        ...(seeds.length > 1 && { seed: seeds[k] }),
        ...(series && { connectsPer100ms: attempts }),
      })),
    );
    console.log(JSON.stringify(rows, null, 2));
  } else {
    console.log(
      formatBrokerMarkdown(
        runs.map((r) => r.map((x) => x.row)),
        seeds,
      ),
    );
  }
  if (report) {
    await writeBrokerReport(report, settings, seeds, runs);
    if (!json) console.log(`report: ${report}`);
  }
  return 0;
}
