// worstCase(policy) is a bound: an operation whose host polls on time and reports no
// Retry-After ends within worstCase ticks of its begin, whatever its attempts meet.
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { Jitter, PolicyFlag } from "../host/abi.js";
import { SimClock } from "../host/clock.js";
import { runOperations } from "../host/driver.js";
import { FaultScript, type Fate } from "../host/faults.js";
import { create } from "../host/tickretry.js";
import { tickDiff } from "../host/ticks.js";
import { runs } from "./harness/runs.js";

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

test.prop(
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
    const flags = p.jitter | PolicyFlag.IDEMPOTENT;
    expect(
      api.setPolicy(
        0,
        p.maxAttempts,
        p.attemptTimeout,
        p.baseDelay,
        p.maxDelay,
        p.throttleBaseDelay,
        p.deadline,
        flags,
      ),
    ).toBe(0);
    const clock = new SimClock(start);
    const trace = runOperations(api, clock, { scripts: [new FaultScript(fates)], policy: 0 });
    const end = trace.find((e) => e.kind === "end")!;
    expect(tickDiff(end.t, start)).toBeLessThanOrEqual(api.worstCase(0));
  },
);
