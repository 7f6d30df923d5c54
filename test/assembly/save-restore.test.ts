// Saving and restoring (docs/ABI.md, "Saving and restoring"), property by property on the
// module: a save and a restore change nothing later; elapsed time is time; lost attempts
// end once each and no operation is lost or ended twice; damaged and random images are
// refused with nothing changed; a host that stores only when changes() moved loses nothing.
// test/assembly/model.test.ts runs the same calls in lockstep with the model.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import {
  Counter,
  EndReason,
  Error as Err,
  Image,
  Limit,
  OpFlag,
  Outcome,
  RestoreFlag,
  Result,
  State,
} from "../../host/library/src/generated/abi.js";
import { instantiate } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";
import { elapsedArb, scenarioArb, startArb } from "./harness/arbitraries.js";
import { Host, invoke, restoreInto, NOW, type Step, type Target } from "./harness/calls.js";
import { guarded, Lockstep } from "./harness/lockstep.js";
import { readImage, writeImage } from "./harness/images.js";
import { Mismatches } from "./harness/mismatches.js";
import { runs } from "./harness/runs.js";
import { shiftTick } from "./harness/absolute.js";
import type { Snapshot } from "./harness/snapshot.js";
import { runTrace, type TraceEntry } from "./harness/trace.js";
import { encodeFields, sealImage } from "./model/image.js";
import { SchedulerModel } from "./model/scheduler.js";

const RUNS = runs(100);
const SAVE: Step = { fn: "save", args: [NOW] };
const ENDED = [...Array(Counter.ENDED_CANCELLED - Counter.ENDED_SUCCEEDED + 1).keys()].map(
  (i) => Counter.ENDED_SUCCEEDED + i,
);

/** `steps` with `insert(i)` placed after step i, for each i in `points`. */
function interleave(
  steps: readonly Step[],
  points: readonly number[],
  insert: (i: number) => Step[],
): Step[] {
  return steps.flatMap((s, i) => (points.includes(i) ? [s, ...insert(i)] : [s]));
}

/** The trace indexes of the `count` calls interleave placed after each point, point by point. */
function insertedAt(steps: readonly Step[], points: readonly number[], count: number): number[][] {
  const out: number[][] = [];
  let entries = 0;
  steps.forEach((s, i) => {
    if (!("tick" in s)) entries++;
    if (points.includes(i)) {
      out.push(Array.from({ length: count }, (_, k) => entries + k));
      entries += count;
    }
  });
  return out;
}

/**
 * changes() counts over an instance's life and a restore counts as a change (docs/ABI.md,
 * changes), so a fresh instance's count differs: the one value left out of these comparisons.
 */
function withoutChanges(entries: readonly TraceEntry[]) {
  return entries.map(({ after: { changes, ...after }, ...e }) => ({
    ...e,
    result: e.fn === "changes" ? 0 : e.result,
    after,
  }));
}

/**
 * Scenarios whose restores copy in saved, damaged and forged images: every image restore
 * accepts holds a state whose own image restore accepts again.
 */
const withImages = scenarioArb();

/** Up to three points of a scenario (after its setup), as indexes into its steps. */
const pointsArb = fc.array(fc.nat(), { minLength: 1, maxLength: 3 });
const at = (points: number[], steps: readonly Step[]) =>
  points.map((p) => 5 + (p % Math.max(1, steps.length - 5)));

describe("save and restore", () => {
  test.prop([withImages, startArb, pointsArb], RUNS)(
    "save, then restore into a fresh instance at the same now with elapsed 0 and no flag, changes no later result",
    (steps, start, rawPoints) => {
      const points = at(rawPoints, steps);
      const restore: Step = { restore: { image: 0, fresh: true, jump: 0, elapsed: 0, flags: 0 } };
      const hostA = new Host(start);
      const hostB = new Host(start);
      const a = runTrace(
        interleave(steps, points, () => [SAVE]),
        start,
        { host: hostA },
      );
      const b = runTrace(
        interleave(steps, points, () => [SAVE, restore]),
        start,
        { host: hostB },
      );
      // B's restores (each right after a save) are accepted; drop them to line B up with A.
      const restores = insertedAt(steps, points, 2).map(([, restore]) => restore);
      for (const i of restores)
        if (b[i - 1].result > 0) expect(b[i].result, "a saved image restored").toBe(Result.OK);
      expect(withoutChanges(b.filter((_, i) => !restores.includes(i)))).toEqual(withoutChanges(a));
      // Every image either saved later holds the whole state: byte for byte the same.
      expect(hostB.images).toEqual(hostA.images);
    },
  );

  test.prop([withImages, startArb, fc.nat(), elapsedArb, fc.integer({ min: 0, max: 2 ** 32 - 1 })], RUNS)(
    "restore with elapsed d is the clock having moved d ticks: later results agree, absolute ticks shifted",
    (steps, start, rawPoint, d, jump) => {
      const [point] = at([rawPoint], steps);
      const restored = runTrace(
        interleave(steps, [point], () => [
          SAVE,
          { restore: { image: 0, fresh: true, jump, elapsed: d, flags: 0 } },
        ]),
        start,
      );
      const moved = runTrace(
        interleave(steps, [point], () => [SAVE, { tick: d }, { fn: "nextDue", args: [NOW] }]),
        start,
      );
      // After the point the restored run's host clock reads jump - d ticks more than the other's.
      const k = (jump - d) >>> 0;
      const shifted = (name: string, args: number[], after: Snapshot, value: number) =>
        shiftTick(name, args, after, value, k);
      const [[, from]] = insertedAt(steps, [point], 2);
      if (restored[from - 1].result < 0) return; // nothing saved: a scenario's forged image was refused before init
      expect(restored[from].result).toBe(Result.OK);
      const [mine, theirs] = [withoutChanges(restored), withoutChanges(moved)];
      expect(mine.length).toBe(theirs.length);
      const wrong = new Mismatches();
      for (let i = from; i < mine.length; i++) {
        const { fn, args, result, after } = theirs[i];
        if (i > from) wrong.compare(`${fn} #${i}`, mine[i].result, shifted(fn, args, after, result));
        for (const [key, value] of Object.entries(after)) {
          const [name, h] = key.split(/[()]/);
          wrong.compare(
            `${key} after ${fn} #${i}`,
            mine[i].after[key],
            shifted(name, [Number(h)], after, value),
          );
        }
      }
      expect(wrong.list).toEqual([]);
    },
  );

  test.prop(
    [
      scenarioArb({ restores: false }),
      startArb,
      pointsArb,
      fc.array(elapsedArb, { minLength: 3, maxLength: 3 }),
      fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { minLength: 3, maxLength: 3 }),
    ],
    RUNS,
  )(
    "after a restore with ATTEMPTS_LOST each attempt in flight has failed AMBIGUOUS once; ended() hands out every operation exactly once",
    (steps, start, rawPoints, elapsed, jumps) => {
      const points = at(rawPoints, steps);
      const withLoss = interleave(steps, points, (i) => [
        SAVE,
        {
          restore: {
            image: 0,
            fresh: true,
            jump: jumps[i % 3],
            elapsed: elapsed[i % 3],
            flags: RestoreFlag.ATTEMPTS_LOST,
          },
        },
      ]);
      const host = new Host(start);
      let api: Target = instantiate();
      const handedOut = new Map<number, number>();
      for (const s of withLoss) {
        if ("tick" in s) {
          host.move(s.tick);
        } else if ("restore" in s) {
          api = restoreLosingAttempts(api, host, s);
        } else {
          const args = host.resolve(s.args, api);
          // The host releases only what ended() handed out (the late-answer rule).
          if (s.fn === "release" && !handedOut.has(args[0])) continue;
          const result = invoke(api, s.fn, args);
          host.saw(s, result, api);
          if (s.fn === "ended" && result >= 0) handedOut.set(result, (handedOut.get(result) ?? 0) + 1);
        }
      }
      cancelAndCollect(api, host, handedOut);
      expect([...handedOut.keys()].sort()).toEqual([...host.handles].sort());
      for (const [h, n] of handedOut) expect(n, `${h} handed out`).toBe(1);
      const ended = ENDED.reduce((sum, c) => sum + api.counter(c), 0);
      expect(ended).toBe(host.handles.length);
      expect(api.counter(Counter.BEGUN)).toBe(host.handles.length);
    },
  );
});

/** Restores `s` (ATTEMPTS_LOST) into a fresh instance and checks that every attempt that was
 * in flight failed AMBIGUOUS once and none was left to time out; returns the new instance. */
function restoreLosingAttempts(api: Target, host: Host, s: Extract<Step, { restore: unknown }>): Target {
  const before = new Map(host.handles.map((h) => [h, { state: api.state(h), attempt: api.attempt(h) }]));
  const timeouts = api.counter(Counter.ATTEMPT_TIMEOUTS);
  const input = host.restoreInput(s);
  const fresh = instantiate();
  expect(restoreInto(fresh, input, s, host.now)).toBe(Result.OK);
  for (const [h, was] of before) {
    if (was.state !== State.IN_FLIGHT) continue;
    expect(fresh.state(h), `${h} still in flight`).not.toBe(State.IN_FLIGHT);
    expect(fresh.attempt(h)).toBe(was.attempt);
    expect(fresh.lastOutcome(h)).toBe(Outcome.AMBIGUOUS);
    const reasons = [
      EndReason.NONE,
      EndReason.AMBIGUOUS,
      EndReason.EXHAUSTED,
      EndReason.DEADLINE,
      EndReason.BUDGET,
    ];
    expect(reasons).toContain(fresh.endReason(h));
  }
  // No attempt was left in flight to time out.
  expect(fresh.counter(Counter.ATTEMPT_TIMEOUTS)).toBe(timeouts);
  return fresh;
}

/** Cancels every live operation and counts what ended() then hands out into `handedOut`. */
function cancelAndCollect(api: Target, host: Host, handedOut: Map<number, number>): void {
  for (const h of host.handles)
    if (([State.WAITING, State.IN_FLIGHT, State.UP] as number[]).includes(api.state(h)))
      api.cancel(h, host.now);
  for (let h = api.ended(host.now); h >= 0; h = api.ended(host.now))
    handedOut.set(h, (handedOut.get(h) ?? 0) + 1);
}

/** Runs `steps` on `api` itself, restores into a fresh instance included (a restore replaces the whole state). */
function runTraceOn(api: Target, steps: readonly Step[], host: Host): void {
  for (const s of steps) {
    if ("tick" in s) host.move(s.tick);
    else if ("restore" in s) restoreInto(api, host.restoreInput(s), s, host.now);
    else host.saw(s, invoke(api, s.fn, host.resolve(s.args, api)), api);
  }
}

describe("refused images change nothing", () => {
  const expectCode = (byte: number) =>
    byte === 0 ? Err.IMAGE_FORMAT : byte === 1 ? Err.IMAGE_ABI : byte <= 3 ? Err.IMAGE_LENGTH : Err.IMAGE_CRC;

  test.prop([scenarioArb(), startArb, elapsedArb, fc.constantFrom(0, RestoreFlag.ATTEMPTS_LOST)], runs(30))(
    "every single-bit flip and every truncation of a saved image is refused, state unchanged",
    (steps, start, elapsed, flags) => {
      const api = instantiate();
      const host = new Host(start);
      runTraceOn(api, steps, host);
      const length = api.save(host.now);
      if (length < 0) return;
      const image = readImage(api, length);
      const changes = api.changes();
      // Plain checks in the loops (thousands per case), one expect at the end.
      const wrong: string[] = [];
      const expectRefused = (what: string, result: number, code: number) => {
        if (result !== code) wrong.push(`${what}: ${result}, not ${code}`);
        if (api.save(host.now) !== length || !Buffer.from(readImage(api, length)).equals(image)) {
          wrong.push(`${what}: state changed`);
        }
        if (api.changes() !== changes) wrong.push(`${what}: changes() moved`);
      };
      for (let bit = 0; bit < length * 8; bit++) {
        const flipped = image.slice();
        flipped[bit >> 3] ^= 1 << (bit & 7);
        writeImage(api, flipped);
        expectRefused(`bit ${bit}`, api.restore(length, host.now, elapsed, flags), expectCode(bit >> 3));
      }
      for (let cut = 0; cut < length; cut++) {
        // A torn copy (the rest of the area zero), and a short length over the whole image.
        writeImage(api, new Uint8Array(Image.AREA_BYTES));
        writeImage(api, image.subarray(0, cut));
        expectRefused(`torn at ${cut}`, api.restore(cut, host.now, elapsed, flags), Err.IMAGE_LENGTH);
        writeImage(api, image);
        expectRefused(`cut to ${cut}`, api.restore(cut, host.now, elapsed, flags), Err.IMAGE_LENGTH);
      }
      writeImage(api, image);
      expectRefused("one byte too many", api.restore(length + 1, host.now, elapsed, flags), Err.IMAGE_LENGTH);
      expect(wrong).toEqual([]);
    },
    120_000,
  );

  test("a slot naming a policy out of range is IMAGE_FIELD on module and model, with nothing changed", () => {
    // Once a trap: the module checked the slot's policy table entry before the policy's range.
    const head = [0, 0, 1, 0, 0, 0, ...Array(9).fill(0), ...Array(Counter.COUNT).fill(0)];
    const policies = [1, 3, 0, 1000, 100, 1000, 0, 0, ...Array(Limit.POLICIES - 1).fill(0)];
    const slots = (policy: number) => [
      ...[1, State.WAITING, policy, 0, 0, 0, OpFlag.DUE, 5, 0, 0, 0, 0, 0],
      ...Array(Limit.OPERATIONS - 1).fill(0),
    ];
    for (const policy of [1, Limit.POLICIES, 2007, 100_000, Limit.MAX_SPAN, 2 ** 32 - 1]) {
      const image = encodeFields([...head, ...policies, ...slots(policy)]);
      for (const t of [instantiate(), new SchedulerModel()]) {
        writeImage(t, image);
        expect(
          guarded(() => t.restore(image.length, 0, 0, 0)),
          `policy ${policy}`,
        ).toBe(Err.IMAGE_FIELD);
        expect(t.save(0)).toBe(Err.NOT_INITIALIZED);
      }
    }
  });

  const randomImage = fc.oneof(
    // Any bytes with any length argument.
    fc
      .tuple(
        fc.uint8Array({ maxLength: Image.AREA_BYTES + 8 }),
        fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
      )
      .map(([bytes, length]) => ({ bytes, length: length ?? bytes.length })),
    // A random body with a header and CRC that fit: only the field checks stand between it and the state.
    fc.uint8Array({ maxLength: Image.AREA_BYTES - 8 }).map((body) => {
      const bytes = sealImage(body);
      return { bytes, length: bytes.length };
    }),
  );

  test.prop(
    [
      scenarioArb(),
      startArb,
      fc.array(fc.tuple(randomImage, elapsedArb, fc.nat(1)), { minLength: 1, maxLength: 20 }),
    ],
    runs(60),
  )(
    "random byte strings never trap, are accepted only when the model (docs/ABI.md) accepts them, with the same state, and change nothing when refused",
    (steps, start, images) => {
      const run = new Lockstep({ start });
      for (const s of steps) expect(run.step(s)).toEqual([]);
      for (const [{ bytes, length }, elapsed, flags] of images) {
        const before =
          run.module.save(run.host.now) > 0
            ? readImage(run.module, run.module.save(run.host.now))
            : undefined;
        const changes = run.module.changes();
        run.model.save(run.host.now);
        run.model.changes();
        for (const t of [run.module, run.model]) writeImage(t, bytes);
        const got = guarded(() => run.module.restore(length, run.host.now, elapsed, flags));
        const want = run.model.restore(length, run.host.now, elapsed, flags);
        expect(got, `restore of ${Buffer.from(bytes).toString("hex")}`).toBe(want);
        if (got !== Result.OK) {
          const after = run.module.save(run.host.now);
          expect(after > 0 ? readImage(run.module, after) : undefined).toEqual(before);
          expect(run.module.changes()).toBe(changes);
          run.model.save(run.host.now);
          run.model.changes();
        }
        expect(run.step({ fn: "save", args: [NOW] })).toEqual([]);
        expect(run.step({ fn: "nextDue", args: [NOW] })).toEqual([]);
      }
    },
  );
});

describe("changes", () => {
  // A clock that only moves on: after a small step back the module's clock is ahead of the
  // host's now, which no elapsed time can express (a restored clock never runs ahead of
  // now), and 2^31 ticks or more in all is no span either.
  const forward = scenarioArb({ damaged: false, backwards: false });

  test.prop([forward, startArb], RUNS)(
    "while changes() stands still, the last stored image restored with the time elapsed saves the same image as the running instance",
    (steps, start) => {
      const api = instantiate();
      const host = new Host(start);
      let stored: { image: Uint8Array; changes: number; elapsed: number } | undefined;
      for (const s of steps) {
        const before = host.now;
        if ("tick" in s) host.move(s.tick);
        else if ("restore" in s) restoreInto(api, host.restoreInput(s), s, host.now);
        else {
          const result = invoke(api, s.fn, host.resolve(s.args, api));
          host.saw(s, result, api);
          if (s.fn === "save" && result > 0)
            stored = { image: host.images.at(-1)!, changes: api.changes(), elapsed: 0 };
        }
        if (stored !== undefined) stored.elapsed += ticksUntil(before, host.now);
      }
      if (stored === undefined || api.changes() !== stored.changes || stored.elapsed > Limit.MAX_SPAN) return;
      const length = api.save(host.now);
      const fresh = instantiate();
      writeImage(fresh, stored.image);
      expect(fresh.restore(stored.image.length, host.now, stored.elapsed, 0)).toBe(Result.OK);
      expect(fresh.save(host.now)).toBe(length);
      expect(Buffer.from(readImage(fresh, length)).toString("hex")).toBe(
        Buffer.from(readImage(api, length)).toString("hex"),
      );
    },
  );
});
