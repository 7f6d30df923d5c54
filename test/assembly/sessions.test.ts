// The rules of sessions, the breaker and the spread (docs/ABI.md, Sessions, Circuit
// breaker, Link-up kick and recovery spread) as properties of random runs, read from what
// a host can observe after every call (the model, run alongside, tells the module's clock).
import { test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  Breaker,
  Counter,
  EndReason,
  OpFlag,
  Outcome,
  PolicyFlag,
  Result,
  State,
} from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { tickReached, ticksUntil } from "../../host/library/src/ticks.js";
import { scenarioArb, startArb } from "./harness/arbitraries.js";
import { runs } from "./harness/runs.js";
import { runTrace, type TraceEntry } from "./harness/trace.js";
import { SchedulerModel } from "./model/scheduler.js";

const RUNS = runs(150);
// One history: no restores (an earlier image turns time back), no policy changes (each
// operation keeps the policy it began with).
const steady = scenarioArb({ restores: false, reconfigure: false });

/** The policies the setup set: setPolicy's arguments after the id, by id. */
function policiesOf(trace: TraceEntry[]): Map<number, number[]> {
  const policies = new Map<number, number[]>();
  for (const e of trace)
    if (e.fn === "setPolicy" && e.result === Result.OK) policies.set(e.args[0], e.args.slice(1));
  return policies;
}
const isSession = (flags: number) => (flags & OpFlag.SESSION) !== 0;

describe("sessions", () => {
  test.prop([steady, startArb], RUNS)(
    "a session ends only by cancel, PERMANENT or its attempt limit",
    (steps, start) => {
      const trace = runTrace(steps, start);
      const policy = new Map<number, number>();
      for (const e of trace) {
        if (e.fn === "begin" && e.result >= 0) policy.set(e.result, e.args[0]);
        for (const [key, reason] of Object.entries(e.after)) {
          const m = /^endReason\((\d+)\)$/.exec(key);
          if (!m || reason <= EndReason.NONE || !isSession(e.after[`opFlags(${m[1]})`])) continue;
          const allowed: number[] = [EndReason.CANCELLED, EndReason.PERMANENT, EndReason.EXHAUSTED];
          expect(allowed, `session ${m[1]} ended ${reason}`).toContain(reason);
          if (reason === EndReason.EXHAUSTED) {
            const maxAttempts = policiesOf(trace).get(policy.get(Number(m[1]))!)![0];
            expect(maxAttempts, "EXHAUSTED without an attempt limit").toBeGreaterThan(0);
          }
        }
      }
    },
  );

  test.prop([steady, startArb], RUNS)(
    "the backoff level never resets before the session stayed UP for stableAfter",
    (steps, start) => {
      const model = new SchedulerModel();
      const upSince = new Map<number, number>();
      const policy = new Map<number, number>();
      let policies = new Map<number, number[]>();
      const trace: TraceEntry[] = [];
      runTrace(steps, start, {
        shadow: model,
        observe: (e, before) => {
          trace.push(e);
          policies = policiesOf(trace);
          if (e.fn === "begin" && e.result >= 0) policy.set(e.result, e.args[0]);
          for (const h of policy.keys()) {
            const [was, is] = [before[`state(${h})`], e.after[`state(${h})`]];
            if (is === State.UP && was !== State.UP) upSince.set(h, e.after[`nextAttemptAt(${h})`]);
            const [from, to] = [before[`backoffLevel(${h})`], e.after[`backoffLevel(${h})`]];
            if (!(from > 0 && to === 0)) continue;
            // Reset: UP, and stableAfter ticks after it came up (a clock fault expires it too).
            expect(is, `level of ${h} reset while not UP`).toBe(State.UP);
            const stableAfter = policies.get(policy.get(h)!)![7];
            const up = ticksUntil(upSince.get(h)!, model.clock!);
            const fault = e.after["counter(6)"] > before["counter(6)"];
            if (!fault)
              expect(up, `level of ${h} reset after ${up} of ${stableAfter} ticks UP`).toBeGreaterThanOrEqual(
                stableAfter,
              );
          }
        },
      });
    },
  );
});

describe("the breaker", () => {
  it("ends a break of 0 ticks as it begins: HALF_OPEN at once, and the next attempt probes", () => {
    const api = create(1n);
    // breakAfter 1, breakBase 0 and breakCap 0: the first failure opens it for no time at all.
    expect(api.setPolicy(0, 5, 100, 10, 100, 10, 0, 0, 0, 0, 1, 0, 0)).toBe(Result.OK);
    const h = api.begin(0, 0);
    expect(api.poll(0)).toBe(h);
    expect(api.report(h, 1, Outcome.TRANSIENT, 0, 5)).toBe(Result.OK);
    expect([api.breakerState(0), api.counter(Counter.BREAKER_OPENS)]).toEqual([Breaker.HALF_OPEN, 1]);
    const changes = api.changes();
    expect(api.nextDue(5)).toBe(api.nextDue(5)); // nothing left to apply at tick 5
    expect(api.changes()).toBe(changes);
    expect(api.poll(5 + api.nextDue(5))).toBe(h);
    expect([api.breakerState(0), api.opFlags(h) & OpFlag.PROBE]).toEqual([Breaker.PROBING, OpFlag.PROBE]);
  });

  test.prop([steady, startArb], RUNS)(
    "at most one probe in flight per breaker; no attempt of an OPEN breaker's policy starts",
    (steps, start) => {
      const policy = new Map<number, number>();
      const model = new SchedulerModel();
      runTrace(steps, start, {
        shadow: model,
        observe: (e, before) => {
          if (e.fn === "begin" && e.result >= 0) policy.set(e.result, e.args[0]);
          const probes = new Map<number, number>();
          for (const [h, id] of policy) {
            const flags = e.after[`opFlags(${h})`];
            if (e.after[`state(${h})`] === State.IN_FLIGHT && flags & OpFlag.PROBE) {
              probes.set(id, (probes.get(id) ?? 0) + 1);
              expect(e.after[`breakerState(${id})`]).toBe(Breaker.PROBING);
            }
          }
          for (const n of probes.values()) expect(n, "probes in flight").toBe(1);
          if (e.fn === "poll" && e.result >= 0) {
            const id = policy.get(e.result)!;
            // A break that ends at the poll's own advance (its end reached, or a clock fault)
            // lets the probe start in that poll (seed 1754514426 found this case).
            if (before[`breakerState(${id})`] === Breaker.OPEN) {
              const faulted =
                e.after[`counter(${Counter.CLOCK_FAULTS})`] > before[`counter(${Counter.CLOCK_FAULTS})`];
              const ended = tickReached(model.clock!, before[`breakEnds(${id})`]) || faulted;
              expect(ended, "an attempt started under OPEN").toBe(true);
              expect(
                e.after[`opFlags(${e.result})`] & OpFlag.PROBE,
                "the first attempt after a break",
              ).toBeTruthy();
            }
            expect(before[`breakerState(${id})`], "a second attempt under PROBING").not.toBe(Breaker.PROBING);
          }
        },
      });
    },
  );
});

describe("the spread", () => {
  test.prop([steady, startArb], RUNS)("every spread draw lies within its window", (steps, start) => {
    const model = new SchedulerModel();
    const policy = new Map<number, number>();
    const trace: TraceEntry[] = [];
    runTrace(steps, start, {
      shadow: model,
      observe: (e, before) => {
        trace.push(e);
        if (e.fn === "begin" && e.result >= 0) policy.set(e.result, e.args[0]);
        // A first attempt (spread under SPREAD_FIRST, else at once), every start linkUp
        // moved, and the first reconnect of a session dropped under SPREAD_DROP lie within
        // [0, spread] of the clock.
        const spreadsDrop = (h: number) =>
          (policiesOf(trace).get(policy.get(h)!)![6] & PolicyFlag.SPREAD_DROP) !== 0;
        const moved =
          e.fn === "linkUp"
            ? [...policy.keys()].filter(
                (h) =>
                  // Waiting before and after: only the kick moves its start (an attempt the
                  // advance timed out waits for a backoff instead).
                  before[`state(${h})`] === State.WAITING &&
                  e.after[`state(${h})`] === State.WAITING &&
                  e.after[`nextAttemptAt(${h})`] !== before[`nextAttemptAt(${h})`],
              )
            : e.fn === "begin" && e.result >= 0
              ? [e.result]
              : e.fn === "drop" && e.result === Result.OK && spreadsDrop(e.args[0])
                ? [e.args[0]]
                : [];
        for (const h of moved) {
          const spread = policiesOf(trace).get(policy.get(h)!)![8];
          const wait = ticksUntil(model.clock!, e.after[`nextAttemptAt(${h})`]);
          expect(wait, `start of ${h}`).toBeGreaterThanOrEqual(0);
          expect(wait, `start of ${h}`).toBeLessThanOrEqual(spread);
        }
      },
    });
  });

  /** The waits before the first reconnect of sessions dropped once, one per seed, under
   * a session policy of backoff 10..100 ticks, a spread of 50,000 and `flags`. */
  function dropWaits(flags: number): number[] {
    return Array.from({ length: 40 }, (_, seed) => {
      const api = create(BigInt(seed + 1));
      const session = PolicyFlag.SESSION | PolicyFlag.IDEMPOTENT | flags;
      expect(api.setPolicy(0, 0, 1000, 10, 100, 0, 0, session, 0, 50_000)).toBe(Result.OK);
      const h = api.begin(0, 0);
      expect(api.poll(0)).toBe(h);
      expect(api.report(h, 1, Outcome.SUCCESS, 0, 1)).toBe(Result.OK);
      expect(api.drop(h, 2)).toBe(Result.OK);
      expect([api.state(h), api.backoffLevel(h)]).toEqual([State.WAITING, 1]);
      return ticksUntil(2, api.nextAttemptAt(h));
    });
  }

  it("SPREAD_DROP draws a dropped session's first reconnect within the spread window, not the backoff's first ceiling", () => {
    const spread = dropWaits(PolicyFlag.SPREAD_DROP);
    for (const w of spread) (expect(w).toBeGreaterThanOrEqual(0), expect(w).toBeLessThanOrEqual(50_000));
    // 40 uniform draws over 50,000 ticks: all within the backoff's 100 has odds of 1e-80.
    expect(Math.max(...spread)).toBeGreaterThan(100);
    // Without it the drop waits the backoff's (level 1: at most the base), spread or not.
    for (const w of dropWaits(0)) expect(w).toBeLessThanOrEqual(10);
  });
});
