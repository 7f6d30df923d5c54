// `npm run chaos:device -- --kills 20 --json`: the device chaos run (run.ts). Progress goes
// to stderr; the result to stdout, one JSON object with --json. Exits 1 when a reading was
// lost, stored twice or dropped (past --allow-drops), or the records contradict each
// other; 2 on bad arguments.
import { rmSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { numberOption } from "../number-option.js";
import { readCommandLine } from "../long-running.js";
import { parseOptions } from "../usage.js";
import { runChaos } from "./run.js";
import { failures, identityHolds } from "./tally.js";

const HELP = `usage: npm run chaos:device -- [options]

Kills the simulated device with SIGKILL at seeded random moments while it uploads to an
upstream in a process of its own (outage, then flaky), restarts it from its state file
each time, lets the last one end every reading it owes, and prints what became of every
reading taken: {taken, began, delivered, duplicates, lost, endedOther, dropped, pending,
identity, dropsWhile} (dropsWhile: the dropped readings by what held the full queue then:
the broker session's state, or every upload slot taken); it fails unless taken = delivered + endedOther + dropped + pending, with no
reading lost or stored twice and none dropped beyond --allow-drops.

options:
  --kills N         kills (default 20)
  --seed N          seeds the kill moments, the upstream and a new scheduler (default random)
  --upload-every MS a reading every MS ms (default 50: the slots fill in the outage)
  --scale X         multiplies the upload policy's spans (default 0.5)
  --max-kill-ms MS  each kill comes up to MS ms after the device serves (default 1500)
  --windows         then one more kill in each narrow window of the pass (the device
                    kills itself there: before the state write, between it and the log,
                    between an answer's arrival and its report)
  --transport T     http (default) or mqtt: the device publishes through a real mosquitto
                    the run starts, with the consumer in a process of its own
  --broker-restarts N with mqtt: restart mosquitto N times at seeded moments of the
                    device lives, down up to 400 ms each (default 0)
  --allow-drops N   readings the full queue may drop before the run fails (default 0)
  --dir DIR         where the state file and the readings log go (default: a temporary
                    folder, removed after a run that passed)
  --json            print the result as one JSON object
  -h, --help        this text
`;

type ChaosOptions = Parameters<typeof runChaos>[0];

/** The run the arguments ask for (with --json: whether to print JSON), or "help"; throws
 * what is wrong with them. */
function parseChaosArgs(
  args: string[],
): { options: ChaosOptions; json: boolean; allowDrops: number } | "help" {
  const values = parseOptions(args, {
    kills: { type: "string" },
    seed: { type: "string" },
    "upload-every": { type: "string" },
    scale: { type: "string" },
    "max-kill-ms": { type: "string" },
    dir: { type: "string" },
    transport: { type: "string" },
    "broker-restarts": { type: "string" },
    "allow-drops": { type: "string" },
    windows: { type: "boolean" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return "help";
  const json = values.json === true;
  const transport = values.transport ?? "http";
  if (transport !== "http" && transport !== "mqtt") {
    throw new Error(`--transport wants http or mqtt, got "${transport}"`);
  }
  if (transport === "http" && values["broker-restarts"] !== undefined) {
    throw new Error("--broker-restarts needs --transport mqtt");
  }
  const options: ChaosOptions = {
    kills: numberOption("kills", values.kills, 1, 1000) ?? 20,
    seed: numberOption("seed", values.seed, 0, 2 ** 32 - 1) ?? crypto.getRandomValues(new Uint32Array(1))[0],
    uploadEveryMs: numberOption("upload-every", values["upload-every"], 10, 60_000),
    scale: numberOption("scale", values.scale, 0.01, 10, false),
    maxKillMs: numberOption("max-kill-ms", values["max-kill-ms"], 0, 600_000),
    dir: values.dir,
    windows: values.windows === true,
    transport,
    brokerRestarts: numberOption("broker-restarts", values["broker-restarts"], 0, 1000),
    onProgress: (line: string) => console.error(`chaos:device: ${line}`),
  };
  return { options, json, allowDrops: numberOption("allow-drops", values["allow-drops"], 0, 1_000_000) ?? 0 };
}

async function main(): Promise<number> {
  const parsed = readCommandLine("chaos:device", HELP, () => parseChaosArgs(process.argv.slice(2)));
  if (typeof parsed === "number") return parsed;
  const result = await runChaos(parsed.options);
  const failed = failures(result, parsed.allowDrops);
  for (const why of failed) console.error(`chaos:device: FAILED ${why}`);
  const t = result.tally;
  const identity = identityHolds(t);
  console.log(
    parsed.json
      ? JSON.stringify({ ...t, identity, dropsWhile: result.dropsWhile })
      : `taken ${t.taken}: delivered ${t.delivered}, endedOther ${t.endedOther}, dropped ${t.dropped} ` +
          `(queue full: ${JSON.stringify(result.dropsWhile)}), pending ${t.pending}; ` +
          `duplicates ${t.duplicates}, lost ${t.lost}; ` +
          `taken = delivered + endedOther + dropped + pending: ${identity}`,
  );
  const passed = failed.length === 0;
  // A temporary folder of our own goes once the run passed; after a failure its log and state
  // file are what explains it.
  if (parsed.options.dir === undefined && passed) rmSync(result.dir, { recursive: true, force: true });
  else if (!passed) console.error(`chaos:device: the state file and readings log are in ${result.dir}`);
  return passed ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => (process.exitCode = code),
    (err) => {
      console.error(`chaos:device: ${(err as Error).message}`);
      process.exitCode = 1;
    },
  );
}
