// `tickretry contention`: the optimistic-concurrency experiment of Brooker's "Exponential
// Backoff And Jitter" with every client its own module instance. Prints the tables or
// the JSON rows; bad arguments exit with code 2 and say what was wrong.
import { availableParallelism } from "node:os";
import { Limit } from "tickretry";
import { progress } from "../progress.js";
import { integerArg, parseOptions, planOrExit, UsageError } from "../usage.js";
import { SMALL_EXPERIMENT_WORK, defaultContentionThreads, runContentionParallel } from "./experiment.js";
import { CONTENTION_STRATEGIES, PUBLISHED, type ContentionStrategy } from "./strategies.js";
import { formatContention } from "./table.js";

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
  --threads N         threads for the runs: this one and N - 1 workers (default one per
                        core, here ${availableParallelism()}; one when every run's clients squared, summed,
                        come under ${SMALL_EXPERIMENT_WORK.toLocaleString("en")}, where a worker's start-up costs more
                        than it saves); the rows are the same for any N
  --json              print the rows as JSON instead of the tables
  -h, --help          this text
`;

interface Plan {
  strategies: ContentionStrategy[];
  clients: number[];
  runs: number;
  seed: number;
  threads: number;
  json: boolean;
}

function plan(args: string[]): Plan | "help" {
  const v = parseOptions(args, {
    clients: { type: "string", default: "10,50,100,200" },
    runs: { type: "string", default: "100" },
    seed: { type: "string", default: "1" },
    strategies: { type: "string", default: PUBLISHED.join(",") },
    threads: { type: "string" },
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
  const runs = integerArg("runs", v.runs, 1, 1_000_000);
  const threads =
    v.threads === undefined
      ? defaultContentionThreads(strategies.length, clients, runs)
      : integerArg("threads", v.threads, 1, 64);
  return {
    strategies,
    clients,
    runs,
    seed: integerArg("seed", v.seed, 0, 2 ** 32 - 1),
    threads,
    json: v.json,
  };
}

export async function run(args: string[]): Promise<number> {
  const planned = planOrExit("contention", HELP, plan, args);
  if ("exit" in planned) return planned.exit;
  const p = planned.plan;
  const bar = progress("contention");
  const rows = await runContentionParallel(
    p.strategies,
    p.clients,
    p.runs,
    p.seed,
    p.threads,
    (done, total) => bar.update(done / total),
  );
  bar.stop();
  console.log(p.json ? JSON.stringify(rows, null, 2) : formatContention(rows, p.seed));
  return 0;
}
