// Everything a host can observe without moving the module's clock: counters, tokens and
// every query of every handle it has seen. Two snapshots are compared key by key.
import { Counter, Limit } from "../../../host/library/src/generated/abi.js";
import type { Target } from "./calls.js";

export const HANDLE_QUERIES = [
  "state",
  "attempt",
  "endReason",
  "lastOutcome",
  "operationId",
  "opFlags",
  "nextAttemptAt",
  "attemptDeadline",
  "deadline",
  "backoffLevel",
  "slot",
] as const;

export type Snapshot = Record<string, number>;

/**
 * Counters, tokens, changes(), and all queries of `handles` (the most recent `limit` of
 * them). Reading changes() folds its flag into its value, on every target alike.
 */
export function snapshot(t: Target, handles: readonly number[], limit = Infinity): Snapshot {
  const s: Snapshot = { tokens: t.tokens(), changes: t.changes() };
  for (let id = 0; id < Counter.COUNT; id++) s[`counter(${id})`] = t.counter(id);
  for (let id = 0; id < Limit.POLICIES; id++) {
    s[`breakerState(${id})`] = t.breakerState(id);
    s[`breakEnds(${id})`] = t.breakEnds(id);
  }
  for (const h of handles.slice(-limit)) {
    for (const q of HANDLE_QUERIES) s[`${q}(${h})`] = t[q](h);
  }
  return s;
}

/** The keys whose values differ, as "key: a vs b" lines. */
export function diffSnapshots(a: Snapshot, b: Snapshot): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]).map((k) => `${k}: ${a[k]} vs ${b[k]}`);
}
