// `tickretry contention`: the optimistic-concurrency experiment of Brooker's "Exponential
// Backoff And Jitter" with every client its own module instance. Prints the tables or
// the JSON rows; bad arguments exit with code 2 and say what was wrong.
import { Presets, SingleBar } from "cli-progress";
import { integerArg, parseOptions, planOrExit, UsageError } from "../usage.js";
import { Limit } from "tickretry";
import { runContentionExperiment } from "./experiment.js";
import { CONTENTION_STRATEGIES, PUBLISHED, type ContentionStrategy } from "./strategies.js";
import { formatContention } from "./table.js";

export const summary = "N clients update one row by optimistic concurrency, retried by each strategy";

const HELP = `usage: tickretry contention [options]

N clients each update one shared row exactly once: read its version, write with it; a
write whose version has changed fails, and the client's module schedules the next read
and write by the strategy's policy, until it succeeds. Every message takes |Normal(10 ms,
2 ms)|; all clients start at 0; ticks are 1 us. Reports, per strategy, the writes sent
(calls) and the time until the last client succeeded (completionMs), means over the runs
(docs/fleet.md).

options:
  --clients LIST      comma-separated client counts, each 1 to ${Limit.MAX_ATTEMPTS} (default 10,50,100,200)
  --runs R            runs per strategy and client count (default 100)
  --seed S            seed of every random number (default 1)
  --strategies LIST   of ${Object.keys(CONTENTION_STRATEGIES).join(", ")}
                        (default ${PUBLISHED.join(",")})
  --json              print the rows as JSON instead of the tables
  -h, --help          this text
`;

interface Plan {
  strategies: ContentionStrategy[];
  clients: number[];
  runs: number;
  seed: number;
  json: boolean;
}

function plan(args: string[]): Plan | "help" {
  const v = parseOptions(args, {
    clients: { type: "string", default: "10,50,100,200" },
    runs: { type: "string", default: "100" },
    seed: { type: "string", default: "1" },
    strategies: { type: "string", default: PUBLISHED.join(",") },
    json: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (v.help) return "help";
  // A write fails only when another client's write succeeded since this client's read,
  // and each client succeeds once: no client fails more than N - 1 times. So N up to
  // MAX_ATTEMPTS, the most attempts a policy allows, always runs until every write succeeds.
  const why = ` (a client may need N attempts; a policy allows at most ${Limit.MAX_ATTEMPTS})`;
  const clients = v.clients
    .split(",")
    .map((n) => integerArg("clients", n.trim(), 1, Limit.MAX_ATTEMPTS, why));
  const strategies = v.strategies.split(",").map((n) => {
    const s = CONTENTION_STRATEGIES[n.trim()];
    if (!s) {
      throw new UsageError(
        `--strategies: unknown strategy "${n}"; known: ${Object.keys(CONTENTION_STRATEGIES).join(", ")}`,
      );
    }
    return s;
  });
  return {
    strategies,
    clients,
    runs: integerArg("runs", v.runs, 1, 1_000_000),
    seed: integerArg("seed", v.seed, 0, 2 ** 32 - 1),
    json: v.json,
  };
}

export async function run(args: string[]): Promise<number> {
  const planned = planOrExit("contention", HELP, plan, args);
  if ("exit" in planned) return planned.exit;
  const p = planned.plan;
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: "contention [{bar}] {value}/{total} runs | ETA {eta}s",
      clearOnComplete: true,
    },
    Presets.shades_classic,
  );
  bar.start(p.strategies.length * p.clients.length * p.runs, 0);
  const rows = runContentionExperiment(p.strategies, p.clients, p.runs, p.seed, (done) => {
    if (done % 16 === 0) bar.update(done);
  });
  bar.stop();
  console.log(p.json ? JSON.stringify(rows, null, 2) : formatContention(rows, p.seed));
  return 0;
}
