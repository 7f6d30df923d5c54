// Properties of the module stated in docs/ABI.md, each checked on random scenarios
// against the module alone (the model-based comparison is test/assembly/model.test.ts).
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import {
  Breaker,
  ABI_VERSION,
  Counter,
  EndReason,
  Error as Err,
  Image,
  Limit,
  NextDue,
  OpFlag,
  Result,
  State,
} from "../../host/library/src/generated/abi.js";
import { instantiate } from "../../host/library/src/tickretry.js";
import { tickAfter, ticksUntil } from "../../host/library/src/ticks.js";
import { hostileCallArb, scenarioArb, startArb } from "./harness/arbitraries.js";
import { Host, invoke, type ExportName, type Step } from "./harness/calls.js";
import { LAYOUT_RULES } from "./harness/layout.js";
import { shiftTick } from "./harness/absolute.js";
import { Mismatches } from "./harness/mismatches.js";
import { SchedulerModel } from "./model/scheduler.js";
import { diffSnapshots, snapshot, type Snapshot } from "./harness/snapshot.js";
import { runs } from "./harness/runs.js";
import { runTrace, type TraceEntry } from "./harness/trace.js";

const RUNS = runs(150);
/** The longest image docs/ABI.md allows (16 operations, 8 policies, every field at its widest). */
const MAX_IMAGE_BYTES = 1379;
const live = (state: number) => state === State.WAITING || state === State.IN_FLIGHT || state === State.UP;
const ENDED = [...Array(Counter.ENDED_CANCELLED - Counter.ENDED_SUCCEEDED + 1).keys()].map(
  (i) => Counter.ENDED_SUCCEEDED + i,
);

/** The handle's policy fields as the scenario set them (setPolicy args minus the id). */
type PolicyArgs = number[];

describe("wrap invariance", () => {
  test.prop([scenarioArb(), startArb, fc.integer({ min: 0, max: 2 ** 32 - 1 })], RUNS)(
    "shifting every tick by k changes no result; absolute ticks shift by k",
    (steps, start, k) => {
      const a = runTrace(steps, start);
      const b = runTrace(steps, (start + k) >>> 0);
      // An absolute tick (a query's answer or result) shifts by k, unless it is the 0 of a bad handle.
      const shifted = (name: string, args: number[], after: Snapshot, value: number) =>
        shiftTick(name, args, after, value, k);
      const wrong = new Mismatches();
      for (let i = 0; i < a.length; i++) {
        const { fn, args, result, after } = a[i];
        wrong.compare(`${fn} #${i}`, b[i].result, shifted(fn, args, after, result));
        for (const [key, value] of Object.entries(after)) {
          const [name, h] = key.split(/[()]/);
          wrong.compare(
            `${key} after ${fn} #${i}`,
            b[i].after[key],
            shifted(name, [Number(h)], after, value),
          );
        }
      }
      expect(wrong.list).toEqual([]);
    },
  );
});

// Restoring an earlier image turns time back (ids, handles and counters with it), so the
// properties of one history run without restores; test/assembly/save-restore.test.ts has theirs.
const oneHistory = scenarioArb({ restores: false });

describe("conservation", () => {
  test.prop([oneHistory, startArb], RUNS)(
    "every begun operation ends exactly once; no handle is reused; ids never repeat",
    (steps, start) => {
      const endOf = new Map<number, number>();
      const ids = new Set<number>();
      const api = instantiate();
      const host = new Host(start);
      const endedCount = (s: Snapshot) => ENDED.reduce((sum, c) => sum + s[`counter(${c})`], 0);
      let begun = 0;
      runTrace(steps, start, {
        api,
        host,
        observe: (e, before) => {
          if (e.fn === "begin" && e.result >= 0) {
            expect(before[`state(${e.result})`], `handle ${e.result} issued twice`).toBeUndefined();
            const id = e.after[`operationId(${e.result})`];
            expect(ids.has(id), `operation id ${id} repeated`).toBe(false);
            ids.add(id);
            begun++;
          }
          for (const h of host.handles) {
            const reason = e.after[`endReason(${h})`];
            if (reason < 0) continue; // released
            expect(e.after[`state(${h})`] === State.DONE, `state of ${h} against its end reason`).toBe(
              reason !== EndReason.NONE,
            );
            if (endOf.has(h)) expect(reason, `end reason of ${h} changed`).toBe(endOf.get(h));
            else if (reason !== EndReason.NONE) endOf.set(h, reason);
          }
          expect(e.after[`counter(${Counter.BEGUN})`]).toBe(begun);
          expect(endedCount(e.after), "ENDED_* counters against the ends observed").toBe(endOf.size);
        },
      });
      // Cancel whatever is still live: then every begun operation has exactly one end.
      for (const h of host.handles) {
        if (live(api.state(h))) expect([Result.OK, Err.NOT_LIVE]).toContain(api.cancel(h, host.now));
      }
      for (const h of host.handles) expect(live(api.state(h)), `${h} still live`).toBe(false);
      expect(endedCount(snapshot(api, []))).toBe(begun);
    },
  );
});

describe("attempts, waits and the budget", () => {
  // A clock that moves forward, no policy changes (each operation keeps the policy it
  // began with). The model, run alongside, tells the module's clock: calls refused before
  // advancing can let the host's now drift 2^31 or more ahead of it.
  const steady = scenarioArb({ backwards: false, reconfigure: false, restores: false });

  interface Seen {
    /** The module's clock after the call, as the model tells it. */
    clock: number;
    /** The fields of the policy handle `h` began with. */
    policy(h: number): {
      maxAttempts: number;
      attemptTimeout: number;
      maxDelay: number;
      maxRetryAfter: number;
    };
  }

  /** Runs `steps` with the model alongside, following setPolicy and begin so that `observe`
   * knows each handle's policy fields. */
  const tracePolicies = (
    steps: readonly Step[],
    start: number,
    observe: (e: TraceEntry, seen: Seen, before: Snapshot, host: Host) => void,
  ) => {
    const policies = new Map<number, PolicyArgs>();
    const policyOf = new Map<number, number>();
    const policy = (h: number) => {
      const args = policies.get(policyOf.get(h)!)!;
      const [maxAttempts, attemptTimeout, , maxDelay] = args;
      return { maxAttempts, attemptTimeout, maxDelay, maxRetryAfter: args[12] };
    };
    const model = new SchedulerModel();
    runTrace(steps, start, {
      shadow: model,
      observe: (e, before, host) => {
        if (e.fn === "setPolicy" && e.result === Result.OK) policies.set(e.args[0], e.args.slice(1));
        if (e.fn === "begin" && e.result >= 0) policyOf.set(e.result, e.args[0]);
        observe(e, { clock: model.clock!, policy }, before, host);
      },
    });
  };

  test.prop([steady, startArb], RUNS)(
    "an attempt never starts at or after its operation's deadline, nor beyond maxAttempts",
    (steps, start) =>
      tracePolicies(steps, start, (e, { clock, policy }) => {
        if (e.fn !== "poll" || e.result < 0) return;
        const h = e.result;
        const p = policy(h);
        const attemptDeadline = e.after[`attemptDeadline(${h})`];
        // maxAttempts 0 is no limit (docs/ABI.md, Policies). A session's limit is on its level,
        // not its attempt number, which counts every connect since begin (seeds 1436572862
        // and 42 found this property written before ABI 3 said so); sessions.test.ts has it.
        const request = (e.after[`opFlags(${h})`] & OpFlag.SESSION) === 0;
        if (p.maxAttempts !== 0 && request)
          expect(e.after[`attempt(${h})`]).toBeLessThanOrEqual(p.maxAttempts);
        expect(ticksUntil(clock, attemptDeadline)).toBeGreaterThanOrEqual(1);
        expect(ticksUntil(clock, attemptDeadline)).toBeLessThanOrEqual(p.attemptTimeout);
        if (e.after[`opFlags(${h})`] & OpFlag.HAS_DEADLINE) {
          const deadline = e.after[`deadline(${h})`];
          expect(ticksUntil(clock, deadline), "started at or after its deadline").toBeGreaterThan(0);
          expect(
            ticksUntil(attemptDeadline, deadline),
            "attempt runs past the deadline",
          ).toBeGreaterThanOrEqual(0);
        }
      }),
  );

  test.prop([steady, startArb], RUNS)(
    "every wait is within [0, cap], or is a Retry-After within maxRetryAfter, and ends before the deadline",
    (steps, start) =>
      tracePolicies(steps, start, (e, { clock, policy }, before, host) => {
        for (const h of host.handles) {
          if (before[`state(${h})`] !== State.IN_FLIGHT || e.after[`state(${h})`] !== State.WAITING) continue;
          const p = policy(h);
          const wait = ticksUntil(clock, e.after[`nextAttemptAt(${h})`]);
          const accepted = e.fn === "report" && e.args[0] === h && e.result === Result.OK;
          // A Retry-After counts up to the policy's bound (maxRetryAfter, 0: maxDelay).
          const bound = p.maxRetryAfter !== 0 ? p.maxRetryAfter : p.maxDelay;
          const retryAfter = Math.min(accepted ? e.args[3] : 0, bound);
          expect(wait).toBeGreaterThanOrEqual(retryAfter);
          if (wait !== retryAfter) expect(wait, "wait above the cap").toBeLessThanOrEqual(p.maxDelay);
          expect(wait, "wait above both caps").toBeLessThanOrEqual(Math.max(p.maxDelay, bound));
          // maxAttempts 0: no limit; a session's attempts count across its connections.
          const request = (e.after[`opFlags(${h})`] & OpFlag.SESSION) === 0;
          if (p.maxAttempts !== 0 && request) {
            expect(e.after[`attempt(${h})`], "retry beyond maxAttempts").toBeLessThan(p.maxAttempts);
          }
          if (e.after[`opFlags(${h})`] & OpFlag.HAS_DEADLINE) {
            expect(wait, "retry at or after the deadline").toBeLessThan(
              ticksUntil(clock, e.after[`deadline(${h})`]),
            );
          }
        }
      }),
  );

  test.prop([scenarioArb({ hostile: true, restores: false }), startArb], RUNS)(
    "budget tokens stay within [0, capacity]",
    (steps, start) => {
      let capacity = 0;
      runTrace(steps, start, {
        observe: (e) => {
          if (e.fn === "init") capacity = 0;
          if (e.fn === "setBudget" && e.result === Result.OK) capacity = e.args[0];
          expect(e.after.tokens).toBeGreaterThanOrEqual(0);
          expect(e.after.tokens).toBeLessThanOrEqual(capacity);
        },
      });
    },
  );
});

describe("nextDue", () => {
  test.prop([oneHistory, startArb], RUNS)(
    "a host that sleeps nextDue - 1 ticks misses nothing; at nextDue ticks something is due",
    (steps, start) => {
      // nextDue counts from the module's clock (ahead of now after a small step back),
      // which the model run alongside tells.
      const api = instantiate();
      const host = new Host(start);
      const model = new SchedulerModel();
      runTrace(steps, start, { api, host, shadow: model });
      // Start whatever is due, as a host would before it sleeps.
      while (api.poll(host.now) >= 0) model.poll(host.now);
      model.poll(host.now);
      const wait = api.nextDue(host.now);
      model.nextDue(host.now);
      if (wait === 0 || wait === NextDue.IDLE) return;
      const now = model.clock!;
      const early = tickAfter(now, wait - 1);
      const before = snapshot(api, host.handles);
      expect(api.nextDue(early)).toBe(1);
      expect(diffSnapshots(before, snapshot(api, host.handles)), "a timer fired early").toEqual([]);
      const due = tickAfter(now, wait);
      const ends = (s: Snapshot) => ENDED.reduce((sum, c) => sum + s[`counter(${c})`], 0);
      const timeouts = (s: Snapshot) => s[`counter(${Counter.ATTEMPT_TIMEOUTS})`];
      const polled = api.poll(due);
      const after = snapshot(api, host.handles);
      // A retry fell due (and started), an attempt timed out, an operation hit its deadline,
      // a break ended (the breaker's state moved), a session became stable (its level), or a
      // wait ended under an OPEN or PROBING breaker, which holds it (HELD). The last is a
      // timer docs/ABI.md names (nextDue: nextAttemptAt of a WAITING operation not yet held)
      // and its expiry is observable; seeds -2019767041, 22172613 and 1966438129 found this
      // property without it.
      const moved = diffSnapshots(before, after).some((d) => /^(breakerState|backoffLevel)\(/.test(d));
      const held = host.handles.some(
        (h) => after[`opFlags(${h})`] >= 0 && after[`opFlags(${h})`] & OpFlag.HELD & ~before[`opFlags(${h})`],
      );
      expect(
        polled >= 0 || ends(after) > ends(before) || timeouts(after) > timeouts(before) || moved || held,
      ).toBe(true);
    },
  );
});

describe("the advance", () => {
  test.prop([scenarioArb(), startArb], RUNS)(
    "applies at once all that is due by now: a second nextDue at the same tick changes nothing",
    (steps, start) => {
      runTrace(steps, start, {
        observe: (_entry, _before, host, api) => {
          const due = api.nextDue(host.now);
          const after = snapshot(api, host.handles);
          expect(api.nextDue(host.now)).toBe(due);
          expect(diffSnapshots(after, snapshot(api, host.handles))).toEqual([]);
        },
      });
    },
  );
});

describe("stale reports", () => {
  const insertions = fc.array(
    fc.record({
      at: fc.nat(130),
      h: fc.nat(63),
      plus: fc.constantFrom(-2, -1, 0, 1, 3),
      outcome: fc.integer({ min: 1, max: 5 }),
      retryAfter: fc.nat(50_000),
    }),
    { minLength: 1, maxLength: 8 },
  );

  test.prop([oneHistory, startArb, insertions], RUNS)(
    "a stale report changes nothing but the STALE_REPORTS counter (and so changes()), now or later",
    (steps, start, stale) => {
      // Both runs call nextDue(now) at each insertion point, so the report's own advance is a
      // no-op; the second run then reports an attempt that is not the one in flight.
      const run = (withStale: boolean) => {
        const api = instantiate();
        const host = new Host(start);
        const trace: { result: number; after: Snapshot }[] = [];
        let staleCount = 0;
        steps.forEach((s, i) => {
          for (const ins of stale.filter((x) => x.at === i)) {
            invoke(api, "nextDue", [host.now]);
            api.changes(); // both runs fold what the advance changed here, before the report
            if (!withStale || host.handles.length === 0) continue;
            const h = host.handles[ins.h % host.handles.length];
            const inFlight = api.state(h) === State.IN_FLIGHT;
            const attempt = api.attempt(h) + (inFlight && ins.plus === 0 ? 1 : ins.plus);
            const before = snapshot(api, host.handles);
            const result = api.report(h, attempt, ins.outcome, ins.retryAfter, host.now);
            const after = snapshot(api, host.handles);
            if (result === Err.BAD_HANDLE) {
              expect(diffSnapshots(before, after)).toEqual([]);
              continue;
            }
            expect(result).toBe(Err.STALE_REPORT);
            staleCount++;
            // A counter that moves is a durable change: changes() moves with it.
            const stalesKey = `counter(${Counter.STALE_REPORTS})`;
            expect(after[stalesKey]).toBe(before[stalesKey] + 1);
            expect(after.changes).toBe(before.changes + 1);
            const moved = { [stalesKey]: 0, changes: 0 };
            expect(diffSnapshots({ ...before, ...moved }, { ...after, ...moved })).toEqual([]);
          }
          if ("tick" in s) return host.move(s.tick);
          if ("restore" in s) throw new Error("one history: no restores");
          const args = host.resolve(s.args, api);
          const result = invoke(api, s.fn, args);
          host.saw(s, result, api);
          const after = snapshot(api, host.handles);
          after[`counter(${Counter.STALE_REPORTS})`] -= staleCount;
          after.changes -= staleCount;
          const readsStales = s.fn === "counter" && args[0] === Counter.STALE_REPORTS;
          trace.push({ result: readsStales || s.fn === "changes" ? result - staleCount : result, after });
        });
        return trace;
      };
      expect(run(true)).toEqual(run(false));
    },
  );
});

describe("determinism", () => {
  test.prop([scenarioArb(), startArb, fc.array(hostileCallArb, { maxLength: 40 })], RUNS)(
    "a fixed seed gives the same run twice, also on an instance used before init",
    (steps, start, junk) => {
      // Only changes() may differ: it counts on through init over an instance's life.
      const withoutChanges = (trace: TraceEntry[]) =>
        trace.map(({ after: { changes, ...after }, ...e }) => ({
          ...e,
          result: e.fn === "changes" ? 0 : e.result,
          after,
        }));
      const first = runTrace(steps, start);
      const used = instantiate();
      runTrace(junk, start, { api: used });
      expect(withoutChanges(runTrace(steps, start, { api: used }))).toEqual(withoutChanges(first));
    },
  );
});

describe("no trap", () => {
  const any = () => true;
  const codes =
    (...allowed: number[]) =>
    (r: number) =>
      allowed.includes(r);
  const within =
    (lo: number, hi: number, ...errors: number[]) =>
    (r: number) =>
      (r >= lo && r <= hi) || errors.includes(r);
  const handleOrErrors =
    (...errors: number[]) =>
    (r: number) =>
      r >= 16 || errors.includes(r);
  const { NOT_INITIALIZED: NI, BAD_HANDLE: BH } = Err;
  /** What docs/ABI.md says each export may return. */
  const documented: Record<ExportName, (r: number) => boolean> = {
    init: codes(Result.OK),
    setPolicy: codes(Result.OK, NI, Err.BAD_POLICY, Err.SPAN_TOO_LARGE, Err.BAD_FIELD),
    setBudget: codes(Result.OK, NI, Err.BAD_FIELD),
    begin: handleOrErrors(NI, Err.BAD_POLICY, Err.TABLE_FULL),
    poll: handleOrErrors(NI, Result.NONE),
    report: codes(Result.OK, NI, BH, Err.BAD_OUTCOME, Err.SPAN_TOO_LARGE, Err.STALE_REPORT),
    cancel: codes(Result.OK, NI, BH, Err.NOT_LIVE),
    drop: codes(Result.OK, NI, BH, Err.NOT_UP),
    linkUp: codes(Result.OK, NI),
    backoffLevel: within(0, 255, BH),
    breakerState: (r) =>
      within(Breaker.CLOSED, Breaker.PROBING, NI, Err.BAD_POLICY)(r) || r === Breaker.ISOLATED,
    holdBreaker: codes(Result.OK, NI, Err.BAD_POLICY),
    releaseBreaker: codes(Result.OK, NI, Err.BAD_POLICY, Err.NOT_ISOLATED),
    breakEnds: any,
    release: codes(Result.OK, NI, BH, Err.STILL_LIVE),
    nextDue: (r) => r <= 0x7fffffff || r === 0xffffffff,
    state: within(State.WAITING, State.UP, BH),
    attempt: within(0, 0x7fffffff, BH),
    endReason: within(EndReason.NONE, EndReason.CANCELLED, BH),
    lastOutcome: within(0, 6, BH),
    operationId: within(0, 0x7fffffff, BH),
    opFlags: within(0, 127, BH),
    nextAttemptAt: any,
    attemptDeadline: any,
    deadline: any,
    field: (r) => r === Err.BAD_HANDLE || r === Err.BAD_FIELD || Number.isInteger(r),
    worstCase: within(0, 0x7fffffff, NI, Err.BAD_POLICY),
    counter: within(0, 0x7fffffff, NI, Err.BAD_COUNTER),
    tokens: within(0, 0x7fffffff, NI),
    abiVersion: codes(ABI_VERSION),
    save: within(Image.HEADER_BYTES + Image.CRC_BYTES, MAX_IMAGE_BYTES, NI),
    ...LAYOUT_RULES,
    restore: codes(
      Result.OK,
      Err.BAD_FIELD,
      Err.SPAN_TOO_LARGE,
      Err.IMAGE_LENGTH,
      Err.IMAGE_FORMAT,
      Err.IMAGE_ABI,
      Err.IMAGE_CRC,
      Err.IMAGE_FIELD,
    ),
    changes: any,
    ended: handleOrErrors(NI, Result.NONE),
    slot: within(0, Limit.OPERATIONS - 1, BH),
  };

  test.prop([fc.array(hostileCallArb, { maxLength: 30 }), scenarioArb({ hostile: true }), startArb], RUNS)(
    "every export, called with arbitrary 32-bit values before and after init, returns a documented code",
    (before, steps, start) => {
      runTrace([...before, ...steps], start, {
        observe: (e) =>
          expect(documented[e.fn](e.result), `${e.fn}(${e.args.join(", ")}) -> ${e.result}`).toBe(true),
      });
    },
  );
});
