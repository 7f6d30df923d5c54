// What a run of `tickretry device` was started for (its upstream scenario and transport),
// kept beside the state file (`<state>.run`), so that the next start can tell whether it
// is asked to go on from a state a different run left: a newcomer who restarts with
// another --scenario or --transport gets a message instead of last run's operations under
// the new settings; --resume goes on anyway.
import { readFileSync } from "node:fs";
import { writeDurably } from "./app/kept.js";

export interface RunNote {
  /** The upstream scenario at start, "elsewhere (URL)" for --upstream-url, "none" over MQTT. */
  scenario: string;
  transport: "http" | "mqtt";
}

const noteFile = (statePath: string) => `${statePath}.run`;

/** The note the last run left beside `statePath`, or undefined (none, or not one this reads). */
export function readRunNote(statePath: string): RunNote | undefined {
  try {
    const note = JSON.parse(readFileSync(noteFile(statePath), "utf8")) as Partial<RunNote>;
    const ok = typeof note.scenario === "string" && (note.transport === "http" || note.transport === "mqtt");
    return ok ? (note as RunNote) : undefined;
  } catch {
    return undefined;
  }
}

export function writeRunNote(statePath: string, note: RunNote): void {
  writeDurably(noteFile(statePath), Buffer.from(`${JSON.stringify(note)}\n`));
}

export const describeRun = (note: RunNote) =>
  note.transport === "mqtt" ? "over MQTT" : `scenario ${note.scenario} over HTTP`;

/** Why a stored state is not taken up without --resume, or undefined when it may be. */
export function refusal(statePath: string, stored: RunNote | undefined, now: RunNote): string | undefined {
  if (stored === undefined || (stored.scenario === now.scenario && stored.transport === now.transport)) {
    return undefined;
  }
  return (
    `state file ${statePath} holds what a run with ${describeRun(stored)} left; this start asks for ` +
    `${describeRun(now)}. --resume goes on from it anyway; to start afresh, remove ${statePath} ` +
    `or pass --state with another file`
  );
}
