// fast-check generators of scenarios: structured calls a host would make (with current and
// stale attempt numbers, every outcome, Retry-After or not), saves and restores (into the
// running instance or a fresh one, with elapsed time, with attempts lost or not, of stored,
// damaged or forged images), hostile calls with arbitrary 32-bit arguments, and clock moves
// that include stalls, wraps, jumps near 2^31 and steps back.
import fc from "fast-check";
import {
  Counter,
  Field,
  Limit,
  PolicyFlag,
  RestoreFlag,
  State,
} from "../../../host/library/src/generated/abi.js";
import { budgetArgs, NO_BUDGET } from "tickretry";
import {
  CALLS,
  EXPORT_NAMES,
  NOW,
  v,
  type Arg,
  type ExportName,
  type RestoreStep,
  type Step,
} from "./calls.js";
import { damageArb } from "./images.js";
import { HANDLE_QUERIES } from "./snapshot.js";

const TWO31 = 2 ** 31;
const TWO32 = 2 ** 32;

/** Any 32-bit value, with the edges over-represented. */
export const anyU32 = fc.oneof(
  fc.integer({ min: 0, max: TWO32 - 1 }),
  fc.integer({ min: -TWO31, max: -1 }),
  fc.constantFrom(0, 1, 2, 7, 8, 14, 15, 16, 255, 256, 999, 1000, 1001, TWO31 - 1, TWO31, TWO32 - 1),
);

export interface ScenarioOptions {
  /** Clock moves may go backwards (racy reads within tolerance, and larger faults). */
  backwards?: boolean;
  /** Include calls with arbitrary 32-bit arguments to any export (init among them, rarely). */
  hostile?: boolean;
  /** setPolicy and setBudget may come between operations' calls (default true). */
  reconfigure?: boolean;
  /** restore steps, of any stored image (default true); saves always. */
  restores?: boolean;
  /**
   * Restores of damaged and forged images too (default true). A forged image restore
   * accepts may hold a state no run reaches (docs/ABI.md checks fields, not histories),
   * but one whose own image restore accepts again.
   */
  damaged?: boolean;
  /** At least (default 10) and at most (default 120) this many random steps after the setup. */
  minLength?: number;
  maxLength?: number;
  /**
   * Every policy has a breaker that opens after 1 to 3 failures, with breaks of 0 ticks half
   * the time, and begins go to policies 0 and 1 only: several operations in flight behind one
   * breaker, its probe among them: attempts time out after 500 ticks or more, retries wait
   * at most 1000, and the clock moves by at most 300 ticks a step.
   */
  breakers?: boolean;
}

/** How far the host clock moves between calls. */
export function tickArb(backwards: boolean): fc.Arbitrary<Step> {
  const forward: fc.WeightedArbitrary<number>[] = [
    { arbitrary: fc.integer({ min: 0, max: 500 }), weight: 12 },
    { arbitrary: fc.integer({ min: 0, max: 5000 }), weight: 4 },
    { arbitrary: fc.integer({ min: 0, max: 50_000 }), weight: 2 },
    { arbitrary: fc.integer({ min: 0, max: TWO31 - 1 }), weight: 1 },
    { arbitrary: fc.integer({ min: TWO31 - 3, max: TWO31 - 1 }), weight: 1 },
  ];
  const back: fc.WeightedArbitrary<number>[] = [
    { arbitrary: fc.integer({ min: TWO32 - 1000, max: TWO32 - 1 }), weight: 2 },
    { arbitrary: fc.integer({ min: TWO32 - 1003, max: TWO32 - 999 }), weight: 1 },
    { arbitrary: fc.integer({ min: TWO31, max: TWO31 + 3 }), weight: 1 },
    { arbitrary: fc.integer({ min: TWO31, max: TWO32 - 1 }), weight: 1 },
  ];
  return fc.oneof(...forward, ...(backwards ? back : [])).map((tick) => ({ tick }));
}

const call = (fn: ExportName, ...args: Arg[]): Step => ({ fn, args });

/**
 * A handle begin returned, a handle poll returned (the ones a host reports on), a recent
 * handle in a given state (the ones a host would cancel or release), or any value.
 */
const handleArg = fc.oneof(
  { arbitrary: fc.nat(15).map((h): Arg => ({ h })), weight: 4 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom(State.WAITING, State.IN_FLIGHT, State.DONE, State.UP), fc.nat(3))
      .map(([inState, k]): Arg => ({ inState, k })),
    weight: 6,
  },
  { arbitrary: fc.constant<Arg>({ polled: 0 }), weight: 4 },
  { arbitrary: fc.nat(3).map((polled): Arg => ({ polled })), weight: 2 },
  { arbitrary: anyU32.map(v), weight: 1 },
);

const small = (max: number) => fc.integer({ min: 0, max });

/** A span up to MAX_SPAN, often near it, where 32-bit arithmetic overflows. */
const hugeSpan = fc.oneof(
  fc.integer({ min: TWO31 - 1001, max: TWO31 - 1 }),
  fc.integer({ min: 0, max: TWO31 - 1 }),
);

/** A span comparable to the clock moves, sometimes huge. */
const spanArb = (max: number) =>
  fc.oneof({ arbitrary: small(max), weight: 8 }, { arbitrary: hugeSpan, weight: 1 });

/** A breaker's break, 0 ticks (over as it begins) half the time. */
const breakArb = fc.oneof(fc.constant(0), spanArb(3000));

/** A valid policy for slot `id` (with `breakers`, always one with a breaker, see ScenarioOptions). */
const validPolicyArb = (id: fc.Arbitrary<number>, breakers = false) =>
  fc
    .record({
      id,
      maxAttempts: fc.oneof(
        { arbitrary: fc.integer({ min: 1, max: 6 }), weight: 9 },
        { arbitrary: fc.integer({ min: 0, max: 255 }), weight: 1 },
      ),
      timeout: breakers
        ? fc.integer({ min: 500, max: 20_000 })
        : fc.oneof(spanArb(20_000), fc.integer({ min: 1, max: 100 })).map((t) => Math.max(1, t)),
      delays: breakers ? fc.tuple(small(300), small(1000)) : fc.tuple(spanArb(2000), spanArb(10_000)),
      throttle: fc.oneof(fc.constant(0), spanArb(10_000)),
      deadline: fc.oneof(fc.constant(0), spanArb(100_000)),
      jitter: small(3),
      // Three in four idempotent, so that timeouts and AMBIGUOUS failures mostly retry.
      idempotent: fc.boolean().chain((b) => (b ? fc.constant(true) : fc.boolean())),
      // One in three a session policy; KICK, SPREAD_FIRST and SPREAD_DROP each one in four.
      session: fc.nat(2).map((n) => n === 0),
      kick: fc.nat(3).map((n) => n === 0),
      spreadFirst: fc.nat(3).map((n) => n === 0),
      spreadDrop: fc.nat(3).map((n) => n === 0),
      stableAfter: fc.oneof(fc.constant(0), spanArb(5000)),
      spread: fc.oneof(fc.constant(0), spanArb(3000)),
      // Half with a breaker: few failures open it, breaks comparable to the waits.
      breakAfter: breakers
        ? fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 3 }))
        : fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 }), small(255)),
      breaks: breakers ? fc.tuple(breakArb, breakArb) : fc.tuple(spanArb(3000), spanArb(20_000)),
      // Half the policies bound Retry-After by maxDelay (0), the others by their own cap.
      maxRetryAfter: fc.oneof(fc.constant(0), spanArb(20_000)),
    })
    .map((p) => {
      const [base, maxDelay] = [Math.min(...p.delays), Math.max(...p.delays)];
      const flags =
        p.jitter |
        (p.idempotent ? PolicyFlag.IDEMPOTENT : 0) |
        (p.session ? PolicyFlag.SESSION : 0) |
        (p.kick ? PolicyFlag.KICK : 0) |
        (p.spreadFirst ? PolicyFlag.SPREAD_FIRST : 0) |
        (p.spreadDrop ? PolicyFlag.SPREAD_DROP : 0);
      const deadline = p.session ? 0 : p.deadline;
      const [breakBase, breakCap] = [Math.min(...p.breaks), Math.max(...p.breaks)];
      const fields = [p.id, p.maxAttempts, p.timeout, base, maxDelay, p.throttle, deadline, flags];
      const session = [p.stableAfter, p.spread, p.breakAfter, breakBase, breakCap, p.maxRetryAfter];
      return call("setPolicy", ...[...fields, ...session].map(v));
    });

/** Mostly valid policies, sometimes any fields. */
const setPolicyArb = fc.oneof(
  { weight: 9, arbitrary: validPolicyArb(small(7)) },
  {
    weight: 1,
    arbitrary: fc
      .array(anyU32, { minLength: CALLS.setPolicy.params.length, maxLength: CALLS.setPolicy.params.length })
      .map((a) => call("setPolicy", ...a.map(v))),
  },
);

/** A budget with every field up to MAX_SPAN, where sums of two fields overflow 32 bits. */
const hugeBudgetArb = fc
  .tuple(hugeSpan, fc.array(hugeSpan, { minLength: 5, maxLength: 5 }), fc.nat(100), fc.nat(100), small(1))
  .map(([capacity, [retry, timeoutRetry, failure, first, success], initialPct, thresholdPct, flags]) => {
    const pct = (x: number) => Math.floor((capacity * x) / 100);
    const fields = [
      capacity,
      pct(initialPct),
      retry,
      timeoutRetry,
      pct(thresholdPct),
      failure,
      first,
      success,
      flags,
    ];
    return call("setBudget", ...fields.map(v));
  });

/** Budgets of the three documented styles' shapes, scaled down so they run dry; sometimes none
 * (OFF), huge or any. */
const setBudgetArb = fc.oneof(
  { weight: 2, arbitrary: hugeBudgetArb },
  { weight: 2, arbitrary: fc.constant(call("setBudget", ...budgetArgs(NO_BUDGET).map(v))) },
  {
    weight: 9,
    arbitrary: fc
      .record({
        capacity: fc.oneof(fc.constant(0), small(20_000)),
        initial: small(100),
        retryCost: small(5000),
        timeoutRetryCost: small(10_000),
        threshold: small(100),
        failureCost: small(2000),
        firstAttemptDeposit: small(500),
        successDeposit: small(1000),
        refundOnSuccess: fc.boolean(),
      })
      .map((b) => {
        const pct = (x: number) => Math.floor((b.capacity * x) / 100);
        const fields = budgetArgs({ ...b, initial: pct(b.initial), threshold: pct(b.threshold) });
        return call("setBudget", ...fields.map(v));
      }),
  },
  {
    weight: 1,
    arbitrary: fc.array(anyU32, { minLength: 9, maxLength: 9 }).map((a) => call("setBudget", ...a.map(v))),
  },
);

const outcomeArb = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 9 },
  { arbitrary: anyU32, weight: 1 },
);
const retryAfterArb = fc.oneof(
  { arbitrary: fc.constant(0), weight: 6 },
  { arbitrary: fc.integer({ min: 1, max: 20_000 }), weight: 3 },
  { arbitrary: anyU32, weight: 1 },
);
const attemptArb = (h: Arg) =>
  fc.oneof(
    { arbitrary: fc.constant<Arg>({ attemptOf: h, plus: 0 }), weight: 8 },
    { arbitrary: fc.integer({ min: -2, max: 1 }).map((plus): Arg => ({ attemptOf: h, plus })), weight: 2 },
    { arbitrary: anyU32.map(v), weight: 1 },
  );

/** A Retry-After: none, any, or one that ends just before, at or just after the deadline. */
const retryAfterFor = (h: Arg) =>
  fc.oneof(
    { arbitrary: retryAfterArb.map(v), weight: 9 },
    {
      arbitrary: fc.integer({ min: -2, max: 1 }).map((plus): Arg => ({ untilDeadline: h, plus })),
      weight: 1,
    },
  );

const reportArb = fc
  .tuple(handleArg, outcomeArb)
  .chain(([h, outcome]) =>
    fc
      .tuple(attemptArb(h), retryAfterFor(h))
      .map(([attempt, ra]) => call("report", h, attempt, v(outcome), ra, NOW)),
  );

/** A current report on one of the four most recent attempts in flight: mostly a success or a failure. */
const inFlightReportArb = fc.tuple(fc.nat(3), fc.constantFrom(1, 1, 2, 2, 3, 4, 5)).map(([k, outcome]) => {
  const h: Arg = { inState: State.IN_FLIGHT, k };
  return call("report", h, { attemptOf: h, plus: 0 }, v(outcome), v(0), NOW);
});

const queryArb = fc.oneof(
  fc.tuple(fc.constantFrom(...HANDLE_QUERIES), handleArg).map(([q, h]) => call(q, h)),
  fc.oneof(small(Counter.COUNT), anyU32).map((id) => call("counter", v(id))),
  fc.constant(call("tokens")),
  fc.constant(call("abiVersion")),
  fc.constant(call("changes")),
  fc.constant(call("imageAddress")),
  fc.constant(call("stateAddress")),
  fc.constant(call("stateBytes")),
  fc.oneof(small(8), anyU32).map((id) => call("worstCase", v(id))),
  fc.oneof(small(8), anyU32).map((id) => call("breakerState", v(id))),
  fc.oneof(small(8), anyU32).map((id) => call("breakEnds", v(id))),
  fc.tuple(handleArg, fc.oneof(small(Field.COUNT), anyU32)).map(([h, which]) => call("field", h, v(which))),
);

/** A policy id: mostly one of the four a scenario sets, sometimes any. */
const policyArg = fc.oneof({ arbitrary: small(3), weight: 9 }, { arbitrary: anyU32, weight: 1 }).map(v);

/** Any export with arbitrary 32-bit arguments (now included). */
const hostileCall = (names: ExportName[]) =>
  fc
    .constantFrom(...names)
    .chain((fn) =>
      fc
        .array(anyU32, { minLength: CALLS[fn].params.length, maxLength: CALLS[fn].params.length })
        .map((args) => call(fn, ...args.map(v))),
    );
export const hostileCallArb = hostileCall(EXPORT_NAMES);

const initArb = fc.tuple(anyU32, anyU32).map(([lo, hi]) => call("init", v(lo), v(hi)));

/** An elapsed time: mostly none or short, sometimes up to MAX_SPAN. */
export const elapsedArb = fc.oneof(
  { arbitrary: fc.constant(0), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 50_000 }), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: Limit.MAX_SPAN }), weight: 1 },
  { arbitrary: fc.constant(Limit.MAX_SPAN), weight: 1 },
);
const lostArb = fc.constantFrom(0, RestoreFlag.ATTEMPTS_LOST);

/**
 * Restores: mostly the image saved last, undamaged, into the running instance (a module
 * swap) or a fresh one (a reboot); sometimes with elapsed or flags out of range, or
 * (`damaged`) of a damaged or forged image: those into the running instance, which must
 * refuse them or take them as docs/ABI.md says.
 */
export function restoreArb(damaged: boolean): fc.Arbitrary<RestoreStep> {
  const inPlace = (r: Omit<RestoreStep["restore"], "fresh" | "jump">) => ({
    restore: { ...r, fresh: false, jump: 0 },
  });
  const kinds: fc.WeightedArbitrary<RestoreStep>[] = [
    {
      weight: 6,
      arbitrary: fc
        .record({
          image: fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.nat(5), weight: 1 }),
          fresh: fc.boolean(),
          jump: fc.oneof(fc.constant(0), anyU32),
          elapsed: elapsedArb,
          flags: lostArb,
        })
        .map((restore) => ({ restore })),
    },
    {
      weight: 1,
      arbitrary: fc.record({ image: fc.nat(5), elapsed: anyU32, flags: anyU32 }).map(inPlace),
    },
  ];
  if (damaged) {
    const damagedArb = fc.record({
      image: fc.nat(5),
      elapsed: elapsedArb,
      flags: lostArb,
      damage: damageArb,
    });
    kinds.push({ weight: 3, arbitrary: damagedArb.map(inPlace) });
  }
  return fc.oneof(...kinds);
}

/** One step of a scenario. */
export function stepArb(options: ScenarioOptions = {}): fc.Arbitrary<Step> {
  const steps: fc.WeightedArbitrary<Step>[] = [
    // With breakers, short moves: attempts stay in flight while others end.
    {
      arbitrary: options.breakers
        ? fc.nat(300).map((tick) => ({ tick }))
        : tickArb(options.backwards ?? true),
      weight: 20,
    },
    {
      arbitrary: fc
        .oneof({ arbitrary: small(options.breakers ? 1 : 3), weight: 9 }, { arbitrary: anyU32, weight: 1 })
        .map((p) => call("begin", v(p), NOW)),
      weight: 6,
    },
    { arbitrary: fc.constant(call("poll", NOW)), weight: 12 },
    { arbitrary: reportArb, weight: 20 },
    { arbitrary: handleArg.map((h) => call("cancel", h, NOW)), weight: 2 },
    // A session's connection drops: mostly one that is UP.
    {
      arbitrary: fc
        .oneof({ arbitrary: fc.nat(3).map((k): Arg => ({ inState: State.UP, k })), weight: 4 }, handleArg)
        .map((h) => call("drop", h, NOW)),
      weight: 5,
    },
    { arbitrary: fc.constant(call("linkUp", NOW)), weight: 2 },
    // A breaker held by hand, and released: mostly of policies 0 to 3, the ones in use.
    { arbitrary: policyArg.map((p) => call("holdBreaker", p, NOW)), weight: 1 },
    { arbitrary: policyArg.map((p) => call("releaseBreaker", p, NOW)), weight: 2 },
    { arbitrary: handleArg.map((h) => call("release", h)), weight: 4 },
    { arbitrary: fc.constant(call("nextDue", NOW)), weight: 2 },
    { arbitrary: fc.constant<Step>({ fn: "nextDue", args: [NOW], sleep: true }), weight: 8 },
    { arbitrary: queryArb, weight: 3 },
    { arbitrary: fc.constant(call("ended", NOW)), weight: 6 },
    { arbitrary: fc.constant(call("save", NOW)), weight: 2 },
  ];
  if (options.breakers) {
    // Several attempts in flight behind one breaker: more begins and polls, and reports on them.
    const begins = fc.nat(1).map((p) => call("begin", v(p), NOW));
    steps.push(
      { arbitrary: begins, weight: 10 },
      { arbitrary: fc.constant(call("poll", NOW)), weight: 10 },
      { arbitrary: inFlightReportArb, weight: 20 },
    );
  }
  if (options.restores ?? true) steps.push({ arbitrary: restoreArb(options.damaged ?? true), weight: 2 });
  if (options.reconfigure ?? true) {
    steps.push({ arbitrary: setPolicyArb, weight: 1 }, { arbitrary: setBudgetArb, weight: 1 });
  }
  if (options.hostile) {
    // init wipes the policies and every handle: rare, or little else would happen.
    const hostile = fc.oneof(
      { arbitrary: hostileCall(EXPORT_NAMES.filter((n) => n !== "init")), weight: 24 },
      { arbitrary: initArb, weight: 1 },
    );
    steps.push({ arbitrary: hostile, weight: 5 });
  }
  return fc.oneof(...steps);
}

/** init, policies 0 to 3 (with breakers: see ScenarioOptions) and maybe a budget: how a scenario starts. */
export const setupArb = (breakers = false): fc.Arbitrary<Step[]> =>
  fc
    .tuple(
      fc.oneof(
        initArb,
        fc.tuple(small(1000), fc.constant(0)).map(([lo]) => call("init", v(lo), v(0))),
      ),
      fc.tuple(...[0, 1, 2, 3].map((id) => validPolicyArb(fc.constant(id), breakers))),
      fc.option(setBudgetArb),
    )
    .map(([init, policies, budget]) => [init, ...policies, ...(budget ? [budget] : [])]);

/** The setup, then random steps. */
export function scenarioArb(options: ScenarioOptions = {}): fc.Arbitrary<Step[]> {
  return fc
    .tuple(
      setupArb(options.breakers),
      fc.array(stepArb(options), {
        minLength: options.minLength ?? 10,
        maxLength: options.maxLength ?? 120,
      }),
    )
    .map(([setup, rest]) => [...setup, ...rest]);
}

/** A first host tick: anywhere, or just before the wrap. */
export const startArb = fc.oneof(
  fc.integer({ min: 0, max: TWO32 - 1 }),
  fc.integer({ min: TWO32 - 60_000, max: TWO32 - 1 }),
);
