// Jitter: the drawn waits stay within their bounds, repeat for one seed and differ across seeds.
import { describe, expect, test } from "vitest";
import { Jitter } from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { retryWaits, setPolicy, type PolicyFields } from "../helpers/policies.js";

const ceilings = [1000, 2000, 4000, 8000, 16000];

/** The waits one operation draws for its five retries (each attempt fails at once). */
function waits(seed: bigint, fields: Partial<PolicyFields>): number[] {
  const api = create(seed);
  setPolicy(api, 0, fields);
  return retryWaits(api, 0);
}

describe("jitter", () => {
  test("full-jitter delays lie within [0, ceiling]", () => {
    for (let seed = 1n; seed <= 200n; seed++) {
      const w = waits(seed, { jitter: Jitter.FULL });
      expect(w).toHaveLength(5);
      w.forEach((d, i) => {
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(ceilings[i]);
      });
    }
  });

  test("full-jitter delays are reproducible for one seed and differ across seeds", () => {
    expect(waits(42n, { jitter: Jitter.FULL })).toEqual(waits(42n, { jitter: Jitter.FULL }));
    const runs = new Set([1n, 2n, 3n, 4n, 5n].map((s) => waits(s, { jitter: Jitter.FULL }).join()));
    expect(runs.size).toBe(5);
  });

  test("full jitter averages about half the ceiling", () => {
    const sums = Array.from({ length: 400 }, (_, s) =>
      waits(BigInt(s + 1), { jitter: Jitter.FULL }).reduce((a, b) => a + b, 0),
    );
    const mean = sums.reduce((a, b) => a + b, 0) / sums.length;
    expect(mean).toBeGreaterThan(15_500 * 0.9);
    expect(mean).toBeLessThan(15_500 * 1.1);
  });

  test("no jitter waits exactly the ceilings", () => {
    expect(waits(9n, { jitter: Jitter.NONE })).toEqual(ceilings);
  });

  test("equal jitter waits within [ceiling/2, ceiling]", () => {
    for (let seed = 1n; seed <= 100n; seed++) {
      waits(seed, { jitter: Jitter.EQUAL }).forEach((d, i) => {
        expect(d).toBeGreaterThanOrEqual(ceilings[i] / 2);
        expect(d).toBeLessThanOrEqual(ceilings[i]);
      });
    }
  });

  test("decorrelated jitter waits within [base, min(cap, 3 x previous)]", () => {
    for (let seed = 1n; seed <= 100n; seed++) {
      let previous = 1000;
      for (const d of waits(seed, { jitter: Jitter.DECORRELATED })) {
        expect(d).toBeGreaterThanOrEqual(1000);
        expect(d).toBeLessThanOrEqual(Math.min(16_000, previous * 3));
        previous = d;
      }
    }
  });
});
