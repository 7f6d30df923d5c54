// "Error codes by example" in docs/ABI.md, row by row, on the module and on the model:
// each call returns its code and leaves everything as it was, visible (every query,
// counter and token) or not (the clock, the PRNG, the next id: the same calls after it
// give the same answers as on a twin that never made the refused call).
import { describe, expect, test } from "vitest";
import {
  Counter,
  Error as Err,
  Jitter,
  Outcome,
  PolicyFlag,
  Result,
} from "../../host/library/src/generated/abi.js";
import { instantiate } from "../../host/library/src/tickretry.js";
import { tickAfter } from "../../host/library/src/ticks.js";
import { invoke, type ExportName, type Target } from "./harness/calls.js";
import { snapshot, type Snapshot } from "./harness/snapshot.js";
import { SchedulerModel } from "./model/scheduler.js";
import { tableUnder } from "../helpers/doc-tables.js";

const NOW = 0xffff_f000;
const LATER = tickAfter(NOW, 5000);
const SEED = 11;

const TARGETS: Record<string, () => Target> = {
  module: () => instantiate(),
  model: () => new SchedulerModel(),
};

interface Fixture {
  t: Target;
  /** h of the docs' states, or 0 where there is none. */
  h: number;
  handles: number[];
}

function initialised(t: Target): void {
  expect(t.init(SEED, 0)).toBe(Result.OK);
  expect(t.setPolicy(0, 3, 1000, 100, 1000, 0, 0, Jitter.FULL | PolicyFlag.IDEMPOTENT)).toBe(Result.OK);
}

/** The "state before" of a row, built on `t`. */
const STATES: Record<string, (t: Target) => Fixture> = {
  fresh: (t) => ({ t, h: 0, handles: [] }),
  initialised: (t) => {
    initialised(t);
    return { t, h: 0, handles: [] };
  },
  "h in flight": (t) => {
    initialised(t);
    const h = t.begin(0, NOW);
    expect(t.poll(NOW)).toBe(h);
    return { t, h, handles: [h] };
  },
  "h ended": (t) => {
    const f = STATES["h in flight"](t);
    expect(t.cancel(f.h, NOW)).toBe(Result.OK);
    return f;
  },
  "h released": (t) => {
    const f = STATES["h ended"](t);
    expect(t.release(f.h)).toBe(Result.OK);
    return f;
  },
  "slot reused": (t) => {
    const f = STATES["h released"](t);
    const g = t.begin(0, NOW);
    expect(g & 15).toBe(f.h & 15);
    return { t, h: f.h, handles: [f.h, g] };
  },
  "table full": (t) => {
    initialised(t);
    const handles = Array.from({ length: 16 }, () => t.begin(0, NOW));
    expect(handles.every((x) => x > 0)).toBe(true);
    return { t, h: handles[0], handles };
  },
};

/** Parses "report(h, 1, SUCCESS, 2^31, later)" into an export and its arguments. */
function parseCall(text: string, h: number): { fn: ExportName; args: number[] } {
  const m = /^(\w+)\((.*)\)$/.exec(text);
  if (!m) throw new Error(`bad call "${text}"`);
  const arg = (a: string): number => {
    if (a === "h") return h;
    if (a === "now") return NOW;
    if (a === "later") return LATER;
    if (a in Outcome) return Outcome[a as keyof typeof Outcome];
    const pow = /^2\^(\d+)(?: - (\d+))?$/.exec(a);
    if (pow) return 2 ** Number(pow[1]) - Number(pow[2] ?? 0);
    if (!/^-?\d+$/.test(a)) throw new Error(`bad argument "${a}" in "${text}"`);
    return Number(a);
  };
  return { fn: m[1] as ExportName, args: m[2] === "" ? [] : m[2].split(", ").map((a) => arg(a) | 0) };
}

/** The same calls on both twins afterwards: results and every observable value. */
function continuation(f: Fixture, fresh: boolean): { results: number[]; after: Snapshot } {
  const { t } = f;
  const results: number[] = [];
  if (fresh) initialised(t);
  const next = tickAfter(NOW, 1);
  results.push(t.nextDue(next));
  const g = t.begin(0, next);
  const p = t.poll(next);
  results.push(g, p, t.report(p, t.attempt(p), Outcome.TRANSIENT, 0, tickAfter(NOW, 2)));
  results.push(t.nextDue(tickAfter(NOW, 2)), t.poll(tickAfter(NOW, 5000)));
  return { results, after: snapshot(t, [...f.handles, g]) };
}

const rows = tableUnder("Error codes by example");

describe("error codes by example (docs/ABI.md)", () => {
  // The IMAGE_* codes need bytes in the image area, not a call: test/assembly/restore.test.ts.
  // BAD_STATUS is the hosts' classifyHttp's: test/host/library/classify.test.ts.
  test("the table names every error code of the module's calls", () => {
    const codes = Object.keys(Err).filter((name) => !name.startsWith("IMAGE_") && name !== "BAD_STATUS");
    expect(new Set(rows.map((r) => r[0]))).toEqual(new Set(codes));
  });

  for (const [code, call, state] of rows) {
    for (const [name, fresh] of Object.entries(TARGETS)) {
      test(`${name}: ${call} in state "${state}" gives ${code} and changes nothing`, () => {
        const build = STATES[state];
        expect(build, `unknown state "${state}"`).toBeDefined();
        const refused = build(fresh());
        const twin = build(fresh());
        const { fn, args } = parseCall(call, refused.h);
        const before = snapshot(refused.t, refused.handles);
        expect(invoke(refused.t, fn, args)).toBe(Err[code as keyof typeof Err]);
        const after = snapshot(refused.t, refused.handles);
        // A stale report counts, and a counter that moves moves changes() too.
        const staleKey = `counter(${Counter.STALE_REPORTS})`;
        const uncount = (s: Snapshot) => {
          if (code === "STALE_REPORT")
            Object.assign(s, { [staleKey]: s[staleKey] - 1, changes: s.changes - 1 });
        };
        uncount(after);
        expect(after).toEqual(before);

        twin.t.changes(); // read as often as on the refused one: each read folds what changed
        const a = continuation(refused, state === "fresh");
        const b = continuation(twin, state === "fresh");
        uncount(a.after);
        expect(a).toEqual(b);
      });
    }
  }
});
