// Wrap invariance: shifting every tick the host passes by k changes no decision.
import { describe, expect, test } from "vitest";
import { SimClock } from "../../host/library/src/clock.js";
import { runOperations, type TraceEvent } from "../../host/library/src/driver.js";
import { FaultScript } from "../../host/library/src/faults.js";
import { create } from "../../host/library/src/tickretry.js";
import { setPolicy } from "../helpers/policies.js";

function scenario(start: number): TraceEvent[] {
  const api = create(99n);
  setPolicy(api, 0, { maxAttempts: 5, attemptTimeout: 700, baseDelay: 300, maxDelay: 2000, jitter: 0 });
  setPolicy(api, 1, { maxAttempts: 4, attemptTimeout: 900, deadline: 4000, jitter: 3, idempotent: false });
  api.setBudget(4000, 4000, 1000, 1500, 0, 0, 200, 0, 0);
  const ops = [
    { policy: 0, fates: ["TRANSIENT@100", "HANG", "THROTTLED@50+RA1200", "SUCCESS@20"] },
    { policy: 1, fates: ["TRANSIENT@10", "THROTTLED@40", "AMBIGUOUS@5"] },
    { policy: 0, fates: ["HANG", "HANG", "HANG", "HANG", "HANG"] },
    { policy: 1, fates: ["TRANSIENT@600", "TRANSIENT@600", "TRANSIENT@600", "SUCCESS@1"] },
  ];
  const operations = ops.map((o) => ({ policy: o.policy, script: new FaultScript(o.fates) }));
  return runOperations(api, new SimClock(start), { operations });
}

describe("wraparound", () => {
  const base = scenario(0);
  test.each([1, 4096, 0x7fff_ffff, 0x8000_0000, 0xffff_f000, 0xffff_ffff])(
    "the same scenario shifted by %i makes every decision alike",
    (k) => {
      const shifted = scenario(k);
      const unshift = (t: number) => (t - k) >>> 0;
      const back = shifted.map((e) =>
        e.kind === "start"
          ? { ...e, t: unshift(e.t), attemptDeadline: unshift(e.attemptDeadline) }
          : { ...e, t: unshift(e.t) },
      );
      expect(back).toEqual(base);
    },
  );

  test("the scenario really crosses the wrap when started near it", () => {
    const events = scenario(0xffff_fc00);
    expect(events.some((e) => e.t < 0x1000)).toBe(true);
    expect(events.length).toBeGreaterThan(10);
  });
});
