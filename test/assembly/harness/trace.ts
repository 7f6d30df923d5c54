// Runs a scenario on one module instance and records what the host saw after every call:
// the result and a snapshot of every observable value. Properties compare such traces.
import { instantiate, type TickRetryApi } from "../../../host/library/src/tickretry.js";
import { Host, invoke, restoreInto, type ExportName, type Step, type Target } from "./calls.js";
import { snapshot, type Snapshot } from "./snapshot.js";

export interface TraceEntry {
  /** The export called; a restore step is its restore call. */
  fn: ExportName;
  args: number[];
  result: number;
  /** Snapshot after the call, keyed by query and handle. */
  after: Snapshot;
}

/** Observer called after each call with the entry, the snapshot before it, and the
 * instance the call went to. */
export type Observer = (entry: TraceEntry, before: Snapshot, host: Host, api: Target) => void;

/**
 * Runs `steps` from host tick `start`, on `api` (a fresh instance by default) for `host`;
 * `shadow` (the model) gets the same calls, so an observer can read what the module keeps
 * to itself, such as its clock. A restore into a fresh instance replaces the instance
 * (`api` is only the first one) and restores the shadow in place.
 */
export function runTrace(
  steps: readonly Step[],
  start: number,
  options: { api?: TickRetryApi; host?: Host; observe?: Observer; shadow?: Target; recent?: number } = {},
): TraceEntry[] {
  const host = options.host ?? new Host(start);
  const trace: TraceEntry[] = [];
  let api: Target = options.api ?? instantiate();
  let before = snapshot(api, host.handles, options.recent);
  for (const s of steps) {
    if ("tick" in s) {
      host.move(s.tick);
      continue;
    }
    let entry: TraceEntry;
    if ("restore" in s) {
      const input = host.restoreInput(s);
      if (input.fresh) api = instantiate();
      const result = restoreInto(api, input, s, host.now);
      if (options.shadow) restoreInto(options.shadow, input, s, host.now);
      const { elapsed, flags } = s.restore;
      entry = {
        fn: "restore",
        args: [input.length, host.now, elapsed, flags],
        result,
        after: snapshot(api, host.handles, options.recent),
      };
    } else {
      const args = host.resolve(s.args, api);
      const result = invoke(api, s.fn, args);
      if (options.shadow) invoke(options.shadow, s.fn, args);
      host.saw(s, result, api);
      entry = { fn: s.fn, args, result, after: snapshot(api, host.handles, options.recent) };
    }
    options.observe?.(entry, before, host, api);
    trace.push(entry);
    before = entry.after;
  }
  return trace;
}
