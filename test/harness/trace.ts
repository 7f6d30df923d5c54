// Runs a scenario on one module instance and records what the host saw after every call:
// the result and a snapshot of every observable value. Properties compare such traces.
import { instantiate, type TickRetryApi } from "../../host/tickretry.js";
import { Host, invoke, type ExportName, type Step, type Target } from "./calls.js";
import { snapshot, type Snapshot } from "./snapshot.js";

export interface TraceEntry {
  fn: ExportName;
  args: number[];
  result: number;
  /** Snapshot after the call, keyed by query and handle. */
  after: Snapshot;
}

/** Observer called after each call with the entry and the snapshot before it. */
export type Observer = (entry: TraceEntry, before: Snapshot, host: Host) => void;

/**
 * Runs `steps` from host tick `start`, on `api` (a fresh instance by default) for `host`;
 * `shadow` (the model) gets the same calls, so an observer can read what the module keeps
 * to itself, such as its clock.
 */
export function runTrace(
  steps: readonly Step[],
  start: number,
  options: { api?: TickRetryApi; host?: Host; observe?: Observer; shadow?: Target } = {},
): TraceEntry[] {
  const api = options.api ?? instantiate();
  const host = options.host ?? new Host(start);
  const trace: TraceEntry[] = [];
  let before = snapshot(api, host.handles);
  for (const s of steps) {
    if ("tick" in s) {
      host.move(s.tick);
      continue;
    }
    const args = host.resolve(s.args, api);
    const result = invoke(api, s.fn, args);
    if (options.shadow) invoke(options.shadow, s.fn, args);
    host.saw(s, result);
    const entry = { fn: s.fn, args, result, after: snapshot(api, host.handles) };
    options.observe?.(entry, before, host);
    trace.push(entry);
    before = entry.after;
  }
  return trace;
}
