// worstCase(policy): attempts * timeout + the sum of the backoff ceilings, bounded by the
// deadline; and it is a bound: an operation whose host polls on time and reports no
// Retry-After ends within worstCase ticks of its begin, whatever its attempts meet.
import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, test } from "vitest";
import { Error as Err, Jitter } from "../../host/library/src/generated/abi.js";
import { SimClock } from "../../host/library/src/clock.js";
import { runOperations } from "../../host/library/src/driver.js";
import { FaultScript, type Fate } from "../../host/library/src/faults.js";
import { policyArgs } from "../../host/library/src/policy.js";
import { create } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";
import { runs } from "./harness/runs.js";
import { setPolicy } from "../helpers/policies.js";

describe("worst case", () => {
  test("6 attempts x 3 s with ceilings 1, 2, 4, 8, 16 s is 49 s", () => {
    const api = create();
    setPolicy(api, 0); // the article's policy, in ms
    expect(api.worstCase(0)).toBe(49_000);
    // Full jitter draws below the same ceilings: its worst case is the same 49 s.
    setPolicy(api, 1, { jitter: Jitter.FULL });
    expect(api.worstCase(1)).toBe(49_000);
  });

  test("the cap holds the ceilings down and the deadline bounds the total", () => {
    const api = create();
    setPolicy(api, 0, { maxDelay: 4000 }); // ceilings 1, 2, 4, 4, 4 s
    expect(api.worstCase(0)).toBe(18_000 + 15_000);
    setPolicy(api, 1, { deadline: 30_000 });
    expect(api.worstCase(1)).toBe(30_000);
  });

  test("decorrelated jitter may triple each wait, the first one its base's", () => {
    const api = create();
    setPolicy(api, 0, { jitter: Jitter.DECORRELATED, maxAttempts: 4 }); // 3, 9, 16 (cap) s
    expect(api.worstCase(0)).toBe(12_000 + 28_000);
  });

  test("the larger of base and throttle base sets the ceilings", () => {
    const api = create();
    setPolicy(api, 0, { maxAttempts: 3, baseDelay: 50, throttleBaseDelay: 1000 }); // 1, 2 s
    expect(api.worstCase(0)).toBe(9000 + 3000);
  });

  test("saturates at 2^31 - 1 ticks and refuses an unset policy", () => {
    const api = create();
    setPolicy(api, 0, { maxAttempts: 255, attemptTimeout: 2 ** 31 - 1 });
    expect(api.worstCase(0)).toBe(2 ** 31 - 1);
    expect(api.worstCase(5)).toBe(Err.BAD_POLICY);
    expect(api.worstCase(8)).toBe(Err.BAD_POLICY);
  });
});

const policyArb = fc
  .record({
    maxAttempts: fc.integer({ min: 1, max: 8 }),
    attemptTimeout: fc.integer({ min: 1, max: 5000 }),
    delays: fc.tuple(fc.nat(3000), fc.nat(60_000)),
    throttleBaseDelay: fc.nat(10_000),
    deadline: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200_000 })),
    jitter: fc.constantFrom(...Object.values(Jitter)),
  })
  .map((p) => ({ ...p, baseDelay: Math.min(...p.delays), maxDelay: Math.max(...p.delays) }));

const fateArb = (timeout: number): fc.Arbitrary<Fate> =>
  fc.oneof(
    fc.constant<Fate>({ hang: true }),
    fc.record({
      outcome: fc.constantFrom("TRANSIENT", "THROTTLED", "AMBIGUOUS" as const),
      latency: fc.integer({ min: 0, max: timeout - 1 }),
    }),
  );

fcTest.prop(
  [
    policyArb.chain((p) =>
      fc.tuple(fc.constant(p), fc.array(fateArb(p.attemptTimeout), { minLength: 1, maxLength: 8 })),
    ),
    fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    fc.nat(2 ** 32 - 1),
  ],
  runs(300),
)(
  "an operation without Retry-After ends within worstCase(policy) ticks of its begin",
  ([p, fates], seed, start) => {
    const api = create(seed);
    expect(api.setPolicy(0, ...policyArgs({ ...p, idempotent: true }))).toBe(0);
    const clock = new SimClock(start);
    const trace = runOperations(api, clock, { operations: [{ policy: 0, script: new FaultScript(fates) }] });
    const end = trace.find((e) => e.kind === "end")!;
    expect(ticksUntil(start, end.t)).toBeLessThanOrEqual(api.worstCase(0));
  },
);
