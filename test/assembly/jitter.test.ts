// Jitter: the drawn waits stay within their bounds, repeat for one seed and differ across seeds.
import { describe, expect, test } from "vitest";
import { Jitter, Outcome, State } from "../../host/library/src/generated/abi.js";
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

// docs/ABI.md, Backoff and jitter: DECORRELATED draws uniform(b, min(cap, max(b, prev * 3))),
// clamping the range; Brooker's published min(cap, uniform(b, prev * 3)) clamps the draw. The
// issue's setting: base 5,000, cap 2,000,000 ticks, levels 1 to 10.
describe("decorrelated jitter's distribution at levels 1 to 10", () => {
  const BASE = 5000;
  const CAP = 2_000_000;
  const LEVELS = 10;
  const OPERATIONS = 1500;
  const POINTS = 400;

  /** The waits at levels 1 to 10 of OPERATIONS operations on one instance: [level][operation]. */
  function drawn(): number[][] {
    const api = create(20_260_101n);
    setPolicy(api, 0, {
      maxAttempts: LEVELS + 1,
      baseDelay: BASE,
      maxDelay: CAP,
      throttleBaseDelay: 0,
      jitter: Jitter.DECORRELATED,
    });
    const byLevel: number[][] = Array.from({ length: LEVELS }, () => []);
    let now = 0;
    for (let i = 0; i < OPERATIONS; i++) {
      const h = api.begin(0, now);
      for (let level = 0; api.poll(now) === h; level++) {
        api.report(h, api.attempt(h), Outcome.TRANSIENT, 0, now);
        if (api.state(h) !== State.WAITING) break;
        byLevel[level].push(api.nextAttemptAt(h) - now);
        now = api.nextAttemptAt(h);
      }
      api.release(h);
    }
    return byLevel;
  }

  /** Quantiles (POINTS of them) of each level's wait under a formula: the next level's CDF is
   * the mean, over the previous level's quantiles w, of the uniform CDF that w leads to. */
  function formulaQuantiles(clampDraw: boolean): number[][] {
    const levels: number[][] = [];
    let previous = [BASE];
    for (let level = 1; level <= LEVELS; level++) {
      const highs = previous.map((w) => Math.max(BASE, 3 * w));
      const cdf = (x: number) => {
        let sum = 0;
        for (const hi of highs) {
          const top = clampDraw ? hi : Math.min(CAP, hi);
          // Clamping the draw puts the mass above the cap at the cap: P(W <= x) = 1 from CAP on.
          sum += x >= top || (clampDraw && x >= CAP) ? 1 : Math.max(0, (x - BASE) / (top - BASE));
        }
        return sum / highs.length;
      };
      const quantiles: number[] = [];
      for (let k = 0; k < POINTS; k++) {
        const q = (k + 0.5) / POINTS;
        let [lo, hi] = [BASE, CAP];
        for (let step = 0; step < 30; step++) {
          const mid = (lo + hi) / 2;
          if (cdf(mid) < q) lo = mid;
          else hi = mid;
        }
        quantiles.push(hi);
      }
      levels.push(quantiles);
      previous = quantiles;
    }
    return levels;
  }

  /** Kolmogorov-Smirnov distance between a sample and a distribution given by quantiles. */
  function ksDistance(sample: number[], quantiles: number[]): number {
    const sorted = [...sample].sort((x, y) => x - y);
    let worst = 0;
    sorted.forEach((x, i) => {
      let below = 0;
      while (below < quantiles.length && quantiles[below] <= x) below++;
      const model = below / quantiles.length;
      worst = Math.max(worst, Math.abs(model - (i + 1) / sorted.length), Math.abs(model - i / sorted.length));
    });
    return worst;
  }

  const sample = drawn();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  test("every level follows the documented formula (KS distance within the 1% critical value)", () => {
    const formula = formulaQuantiles(false);
    // 1.63 / sqrt(n): the KS test's 1% critical value; 0.005 for the quantile grid.
    const critical = 1.63 / Math.sqrt(OPERATIONS) + 0.005;
    for (let level = 0; level < LEVELS; level++) {
      expect(sample[level]).toHaveLength(OPERATIONS);
      expect(ksDistance(sample[level], formula[level]), `level ${level + 1}`).toBeLessThan(critical);
      const expected = mean(formula[level]);
      expect(Math.abs(mean(sample[level]) - expected) / expected, `mean at level ${level + 1}`).toBeLessThan(
        0.06,
      );
    }
  });

  test("and not Brooker's clamp after the draw, whose waits pile up at the cap", () => {
    const published = formulaQuantiles(true);
    const atCap = published[LEVELS - 1].filter((q) => q >= CAP).length / POINTS;
    // The figures: about 0.06 at the cap by the 10th wait, mean about 378,000.
    expect(atCap).toBeGreaterThan(0.04);
    expect(atCap).toBeLessThan(0.08);
    expect(mean(published[LEVELS - 1])).toBeGreaterThan(360_000);
    expect(mean(published[LEVELS - 1])).toBeLessThan(400_000);
    // The module: no wait at the cap to speak of, and a mean the published formula misses.
    const moduleAtCap = sample[LEVELS - 1].filter((w) => w === CAP).length / OPERATIONS;
    expect(moduleAtCap).toBeLessThan(0.01);
    expect(ksDistance(sample[LEVELS - 1], published[LEVELS - 1])).toBeGreaterThan(
      1.63 / Math.sqrt(OPERATIONS),
    );
  });
});
