// The application's traces (test/app-scenarios/README.md): the scenarios, the firmware's
// run on this machine, the lines both builds print, and the accounting every trace owes its
// readings. app-host.test.ts and app-differential.test.ts hold both builds to it.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { expect } from "vitest";
import { EndReason } from "../../host/library/src/generated/abi.js";
import { ROOT } from "./command.js";

const SCENARIOS = `${ROOT}test/app-scenarios/`;
const PROGRAM = `${ROOT}build/native/app_host`;
/** The MQTT build, for a script whose first command is `transport mqtt`. */
const PROGRAM_MQTT = `${ROOT}build/native/app_host_mqtt`;

/** Whether a script uploads over MQTT (its `transport mqtt` line). */
export const overMqtt = (script: string): boolean => /^transport mqtt$/m.test(script);

/** Every scenario's name (its file without .txt). */
export const scenarioNames = (): string[] =>
  readdirSync(SCENARIOS)
    .filter((f) => f.endsWith(".txt"))
    .map((f) => f.slice(0, -4))
    .sort();

export const scenario = (name: string): string => readFileSync(`${SCENARIOS}${name}.txt`, "utf8");

/** Runs the firmware's application (build/native/app_host, or its MQTT build) on a script: its trace, one entry a line. */
export function runApp(
  script: string,
  program: string[] = [overMqtt(script) ? PROGRAM_MQTT : PROGRAM],
): string[] {
  const [file, ...args] = program;
  return execFileSync(file, args, { input: script, encoding: "utf8" }).trim().split("\n");
}

/** The kinds only one build prints: the README's "Side-only kinds:" line, the one place that says so. */
export function sideOnlyKinds(): Set<string> {
  const readme = readFileSync(`${SCENARIOS}README.md`, "utf8");
  const line = readme.split("\n").find((l) => l.startsWith("Side-only kinds:"));
  if (line === undefined) throw new Error(`${SCENARIOS}README.md has no "Side-only kinds:" line`);
  return new Set([...line.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]));
}

/** The lines both builds print. */
export function shared(trace: string[], sideOnly = sideOnlyKinds()): string[] {
  return trace.filter((line) => !sideOnly.has(line.split(" ")[1]));
}

/** What the trace says became of the readings. */
export function account(trace: string[]) {
  const taken: number[] = [];
  const ended = new Map<number, number[]>();
  const keysOf = new Map<number, Set<string>>();
  let dropped = 0;
  for (const line of trace) {
    const [, what, ...rest] = line.split(" ");
    if (what === "reading" && rest[0] === "seq") taken.push(Number(rest[1]));
    if (what === "reading" && rest[0] === "dropped") dropped++;
    if (what === "ended")
      ended.set(Number(rest[1]), [...(ended.get(Number(rest[1])) ?? []), Number(rest[3])]);
    if (what === "server" && rest[0] === "stored") {
      keysOf.set(Number(rest[4]), new Set([...(keysOf.get(Number(rest[4])) ?? []), rest[2]]));
    }
  }
  const summary = trace.at(-1)!.match(/summary live (\d+) queued (\d+) dropped (\d+) seq (\d+)$/)!;
  return {
    taken,
    ended,
    keysOf,
    dropped,
    live: Number(summary[1]),
    queued: Number(summary[2]),
    summaryDropped: Number(summary[3]),
    seq: Number(summary[4]),
  };
}

/**
 * The invariants every scenario is held to, on either build: every reading taken is
 * delivered, ended with a reason, still live or still queued at the end, or dropped from a
 * full queue, counted; none is ended twice or stored under two keys. `endsOnce` false: a power
 * cut took up NVS's older copy, which ends again what ended after it and takes the reading
 * count back with it, so a number may be taken again under the new boot's epoch (another
 * reading, another key): each number's keys then differ in their epoch, and the readings
 * taken since that copy are lost with the cut. Returns the
 * accounting.
 */
export function holdsInvariants(trace: string[], endsOnce = true) {
  const a = account(trace);
  // Readings are numbered 1, 2, ... with none skipped or (but after a power cut) taken twice.
  const numbers = endsOnce ? a.taken : [...new Set(a.taken)].sort((x, y) => x - y);
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  expect(a.dropped).toBe(a.summaryDropped);
  // After a power cut, numbers past the count NVS's copy took back were lost with the cut.
  const notEnded = [...new Set(a.taken)].filter((seq) => seq <= a.seq && !a.ended.has(seq));
  expect(notEnded.length).toBe(a.live + a.queued + a.dropped);
  for (const [seq, reasons] of a.ended) {
    if (endsOnce) expect(reasons, `reading ${seq} ended more than once`).toHaveLength(1);
    if (reasons.includes(EndReason.SUCCEEDED))
      expect(a.keysOf.has(seq), `reading ${seq} succeeded unstored`).toBe(true);
  }
  for (const [seq, keys] of a.keysOf) {
    const epochs = new Set([...keys].map((key) => key.split(":")[0]));
    expect(endsOnce ? keys.size : epochs.size, `reading ${seq} stored under ${[...keys]}`).toBe(
      endsOnce ? 1 : keys.size,
    );
  }
  return a;
}

export const count = (trace: string[], pattern: RegExp): number =>
  trace.filter((line) => pattern.test(line)).length;
