// Constant names for people: the page and the log show "WAITING", not 1.
import { Counter, EndReason, Outcome, State } from "../abi.js";

function nameOf(group: Record<string, number>, value: number): string {
  return Object.keys(group).find((k) => group[k] === value) ?? String(value);
}

export const stateName = (v: number) => nameOf(State, v);
export const outcomeName = (v: number) => nameOf(Outcome, v);
export const endReasonName = (v: number) => nameOf(EndReason, v);

/** Every counter id with its name, COUNT left out. */
export const COUNTERS = Object.entries(Counter).filter(([name]) => name !== "COUNT");
