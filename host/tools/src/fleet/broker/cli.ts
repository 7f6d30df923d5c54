// `tickretry fleet --scenario broker-restart`: the broker-restart experiment (run.ts) for
// every strategy of strategies.ts, as a table or JSON rows. Bad arguments exit 2.
import { integerArg, parseOptions, planOrExit, UsageError } from "../../usage.js";
import { devicesThatFit, fitReason } from "../fits.js";
import { DEFAULT_BROKER_SETTINGS, runBrokerRestart, type BrokerRow, type BrokerSettings } from "./run.js";
import { BROKER_STRATEGIES } from "./strategies.js";
import { formatBrokerMarkdown } from "./table.js";

const HELP = `usage: tickretry fleet --scenario broker-restart [options]

N devices each hold one MQTT-like session to a broker whose connect handshake costs far more
CPU than a publish (docs/fleet.md, "A broker restart"). At AT ms the broker restarts: every
session drops, and connects are refused until it is back MS later. Strategies: esp-mqtt's
fixed 10 s, Tasmota's linear growth to 120 s, FreeRTOS backoffAlgorithm's full jitter, and
tickretry sessions (full jitter; full jitter + spread + breaker).

options:
  --devices N            devices (default ${DEFAULT_BROKER_SETTINGS.devices})
  --seeds LIST           comma-separated seeds (default 42)
  --restart AT:MS        the restart at AT ms, the broker back MS later (default ${DEFAULT_BROKER_SETTINGS.restartAtMs}:${DEFAULT_BROKER_SETTINGS.downMs})
  --duration MS          length of the run (default ${DEFAULT_BROKER_SETTINGS.durationMs})
  --connect-cost MS      broker CPU per connect handshake, of 100 per 100 ms (default ${DEFAULT_BROKER_SETTINGS.broker.connectCostMs})
  --json                 print the rows as JSON (one per strategy and seed)
  -h, --help             this text
`;

interface Plan {
  settings: BrokerSettings;
  seeds: number[];
  json: boolean;
}

function plan(args: string[]): Plan | "help" {
  const v = parseOptions(args, {
    scenario: { type: "string" },
    devices: { type: "string", default: `${DEFAULT_BROKER_SETTINGS.devices}` },
    seeds: { type: "string", default: "42" },
    restart: {
      type: "string",
      default: `${DEFAULT_BROKER_SETTINGS.restartAtMs}:${DEFAULT_BROKER_SETTINGS.downMs}`,
    },
    duration: { type: "string", default: `${DEFAULT_BROKER_SETTINGS.durationMs}` },
    "connect-cost": { type: "string", default: `${DEFAULT_BROKER_SETTINGS.broker.connectCostMs}` },
    json: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
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
  const settings: BrokerSettings = {
    devices: integerArg("devices", v.devices, 1, devicesThatFit(), fitReason()),
    restartAtMs,
    downMs,
    durationMs,
    broker: {
      ...DEFAULT_BROKER_SETTINGS.broker,
      connectCostMs: integerArg("connect-cost", v["connect-cost"], 1, 100),
    },
  };
  const seeds = v.seeds.split(",").map((s) => integerArg("seeds", s.trim(), 0, 2 ** 32 - 1));
  return { settings, seeds, json: v.json };
}

/** Every strategy over every seed: runs[s][k] is strategy s under seeds[k]. */
export function runBrokerExperiment(settings: BrokerSettings, seeds: number[]): BrokerRow[][] {
  return BROKER_STRATEGIES.map((s) => seeds.map((seed) => runBrokerRestart(settings, s, seed).row));
}

export function runBrokerCli(args: string[]): number {
  const planned = planOrExit("fleet --scenario broker-restart", HELP, plan, args);
  if ("exit" in planned) return planned.exit;
  const { settings, seeds, json } = planned.plan;
  const runs = runBrokerExperiment(settings, seeds);
  if (json) {
    const rows = runs.flatMap((r) =>
      r.map((row, k) => (seeds.length > 1 ? { ...row, seed: seeds[k] } : row)),
    );
    console.log(JSON.stringify(rows, null, 2));
  } else {
    console.log(formatBrokerMarkdown(runs, seeds));
  }
  return 0;
}
