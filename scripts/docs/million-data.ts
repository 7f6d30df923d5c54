// docs/fleet-million.json: the rows of the runs at 10,000 to 1,000,000 devices that
// docs/fleet.md's A million devices shows. They take minutes, so npm run docs:fleet reads
// them, and only `--million` runs them again: the outage's (strategy C) and the broker
// restart's (every strategy), or with --million=outage or --million=broker one scenario's,
// keeping the other's rows as they are. Each run shows its progress on stderr.
import { readFileSync, writeFileSync } from "node:fs";
import { format } from "prettier";
import { runBrokerSize, type BrokerSizeRow } from "../../host/tools/src/fleet/broker/million.js";
import { MILLION_SEED, MILLION_SIZES, runSize, type SizeRow } from "../../host/tools/src/fleet/million.js";
import { progress } from "../../host/tools/src/progress.js";

export interface MillionData {
  written: string;
  /** The outage, strategy C. */
  sizes: SizeRow[];
  /** The broker restart, every strategy. */
  broker: BrokerSizeRow[];
}

const SCENARIOS = ["outage", "broker"] as const;

/** `run` with its progress shown and its wall time told, as `label`. */
function shown<T>(label: string, run: (progress: (share: number) => void) => T): T {
  const bar = progress(label, true);
  const start = performance.now();
  const result = run((share) => bar.update(share));
  bar.stop();
  console.error(`${label}: ${Math.round((performance.now() - start) / 1000)} s`);
  return result;
}

/** The scenarios `--million[=SCENARIO]` in `argv` asks to run again (none without it). */
function asked(argv: string[]): readonly (typeof SCENARIOS)[number][] {
  const arg = argv.find((a) => a === "--million" || a.startsWith("--million="));
  if (arg === undefined) return [];
  if (arg === "--million") return SCENARIOS;
  const name = arg.slice("--million=".length);
  const scenario = SCENARIOS.find((s) => s === name);
  if (scenario === undefined) throw new Error(`${arg}: want --million, or --million= one of ${SCENARIOS}`);
  return [scenario];
}

/** The data in `file`, with what `argv` asks run again and written back first. */
export async function millionData(file: string, argv: string[]): Promise<MillionData> {
  const data = JSON.parse(readFileSync(file, "utf8")) as MillionData;
  const again = asked(argv);
  const at = (devices: number) => `docs:fleet: ${devices.toLocaleString("en")} devices`;
  if (again.includes("outage")) {
    data.sizes = MILLION_SIZES.map((n) => shown(`${at(n)}, outage`, (p) => runSize(n, p)));
  }
  if (again.includes("broker")) {
    data.broker = MILLION_SIZES.map((n) =>
      shown(`${at(n)}, broker restart`, (p) => runBrokerSize(n, MILLION_SEED, p)),
    );
  }
  if (again.length > 0) {
    const text = JSON.stringify({
      written: "npm run docs:fleet -- --million",
      sizes: data.sizes,
      broker: data.broker,
    });
    writeFileSync(file, await format(text, { filepath: file }));
  }
  if (data.broker === undefined)
    throw new Error(`${file} has no broker rows: run npm run docs:fleet -- --million=broker`);
  return data;
}
