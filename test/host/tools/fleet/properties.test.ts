// Whatever the policy, the host and the modules agree: every attempt the modules started
// was sent, every answer to an attempt the module timed out is refused as stale, every
// operation begun ends, within its deadline and its attempt limit.
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { Jitter } from "../../../../host/library/src/generated/abi.js";
import { experimentSettings } from "../../../../host/tools/src/fleet/settings.js";
import { runFleet } from "../../../../host/tools/src/fleet/simulator.js";
import type { Strategy } from "../../../../host/tools/src/fleet/strategies.js";
import type { JitterName } from "../../../../host/library/src/policy.js";

const policy = fc
  .record({
    maxAttempts: fc.integer({ min: 1, max: 6 }),
    attemptTimeout: fc.integer({ min: 50, max: 3000 }),
    baseDelay: fc.integer({ min: 0, max: 500 }),
    extraDelay: fc.integer({ min: 0, max: 2500 }),
    deadline: fc.oneof(fc.constant(0), fc.integer({ min: 500, max: 8000 })),
    jitter: fc.constantFrom(...(Object.keys(Jitter) as JitterName[])),
    idempotent: fc.boolean(),
  })
  .map(({ extraDelay, ...p }): Strategy => ({
    name: "P",
    description: "generated",
    policy: { ...p, maxDelay: p.baseDelay + extraDelay, throttleBaseDelay: 0 },
  }));

const sum = (buckets: { counts: Int32Array; at(b: number): number }) => {
  let n = 0;
  for (let b = 0; b < buckets.counts.length; b++) n += buckets.at(b);
  return n;
};

test.prop([policy, fc.integer({ min: 0, max: 2 ** 31 })], { numRuns: 25 })(
  "host and modules agree for any policy",
  (strategy, seed) => {
    const settings = experimentSettings(20);
    settings.durationMs = 14_000;
    const r = runFleet(settings, strategy, seed);
    const first = sum(r.firstSends);
    const sends = first + sum(r.retrySends);
    expect(sends).toBe(r.attemptsStarted);
    expect(r.staleResponses).toBe(r.attemptTimeouts);
    expect(first).toBe(r.opStart.length);
    expect(sends).toBeLessThanOrEqual(first * strategy.policy.maxAttempts);
    if (strategy.policy.deadline > 0) {
      expect(Math.max(...r.opLatency)).toBeLessThanOrEqual(strategy.policy.deadline);
    }
  },
);
