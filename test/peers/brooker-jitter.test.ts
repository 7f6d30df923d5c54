// Brooker's backoff and jitter formulas: the AWS Architecture Blog's "Exponential Backoff And
// Jitter" (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/) and its
// simulation code, aws-samples/aws-arch-backoff-simulator src/backoff_simulator.py @ 66cb1692
// (ExpoBackoff, ExpoBackoffEqualJitter, ExpoBackoffFullJitter, ExpoBackoffDecorr, NoBackoff,
// each built with base 5 and cap 2000 by setup_sim). The simulator's expo(n) is
// min(cap, 2^n * base) with n = 1 at the first retry; the module's ceiling is
// min(cap, base * 2^(n-1)): the same waits take a base of 10. docs/peers.md, Brooker.
import { describe, expect, test } from "vitest";
import { Outcome } from "../../host/library/src/generated/abi.js";
import type { JitterName } from "../../host/library/src/policy.js";
import { create } from "../../host/library/src/tickretry.js";
import { configured, peerPolicy, runOperation } from "./peer-run.js";

const BASE = 5;
const CAP = 2000;
const expo = (n: number) => Math.min(CAP, 2 ** n * BASE); // the simulator's ceiling for retry n

/** The waits of one operation that fails `failures` times under `jitter`. */
const waits = (jitter: JitterName, failures: number, baseDelay = 2 * BASE, seed = 1n) =>
  runOperation(
    configured(peerPolicy({ maxAttempts: 0, baseDelay, maxDelay: CAP, jitter }), undefined, create(seed)),
    Array(failures).fill(Outcome.TRANSIENT),
  ).waits;

/** The wait before retry `n` of `count` operations, one instance. */
function samples(jitter: JitterName, n: number, count: number): number[] {
  const api = configured(
    peerPolicy({ maxAttempts: 0, baseDelay: 2 * BASE, maxDelay: CAP, jitter }),
    undefined,
    create(3n),
  );
  return Array.from(
    { length: count },
    () => runOperation(api, Array(n).fill(Outcome.TRANSIENT)).waits[n - 1],
  );
}
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe("aws-arch-backoff-simulator src/backoff_simulator.py (base 5, cap 2000)", () => {
  test("ExpoBackoff: 10, 20, 40 ... 1280, 2000; the module's exponent starts at 0, so base 5 gives half (documented)", () => {
    const simulator = Array.from({ length: 10 }, (_, i) => expo(i + 1));
    expect(waits("NONE", 10)).toEqual(simulator); // base 10
    expect(waits("NONE", 10, BASE).slice(0, 3)).toEqual([5, 10, 20]); // base 5: expo(n - 1)
  });

  test("ExpoBackoffEqualJitter: v/2 + uniform(0, v/2), at retry 8 (v = 1280): within [640, 1280], mean 960", () => {
    const xs = samples("EQUAL", 8, 1500);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(expo(8) / 2);
    expect(Math.max(...xs)).toBeLessThanOrEqual(expo(8));
    expect(Math.abs(mean(xs) - 960)).toBeLessThan(25);
  });

  test("ExpoBackoffFullJitter: uniform(0, v), at retry 8 (v = 1280): within [0, 1280], mean 640", () => {
    const xs = samples("FULL", 8, 1500);
    expect(Math.min(...xs)).toBeLessThan(30);
    expect(Math.max(...xs)).toBeLessThanOrEqual(expo(8));
    expect(Math.abs(mean(xs) - 640)).toBeLessThan(30);
  });

  test("ExpoBackoffDecorr: the first sleep is uniform(base, 3 * base); later ones stay within [5, min(cap, 3 * prev)]", () => {
    const first = samples("DECORRELATED", 1, 600);
    expect([Math.min(...first), Math.max(...first)]).toEqual([2 * BASE, 6 * BASE]); // base 10
    for (let seed = 1n; seed <= 20n; seed++) {
      const ws = waits("DECORRELATED", 60, BASE, seed);
      ws.slice(1).forEach((w, i) => {
        expect(w).toBeGreaterThanOrEqual(BASE);
        expect(w).toBeLessThanOrEqual(Math.min(CAP, Math.max(BASE, 3 * ws[i])));
      });
    }
  });

  test("ExpoBackoffDecorr at the cap: min(cap, uniform(5, 3 * prev)) lands on the cap 2 times in 3; the module's range clamp almost never (documented)", () => {
    // From prev = 2000 the published formula draws uniform(5, 6000) and clamps the draw:
    // P(cap) = (6000 - 2000) / (6000 - 5) = 0.667. The module draws uniform(5, 2000).
    const published = (6000 - CAP) / (6000 - BASE);
    const atCap: number[] = [];
    for (let seed = 1n; seed <= 20n; seed++) {
      const ws = waits("DECORRELATED", 80, BASE, seed);
      ws.slice(1).forEach((w, i) => ws[i] * 3 >= CAP && atCap.push(w === CAP ? 1 : 0));
    }
    expect(atCap.length).toBeGreaterThan(200);
    expect(published).toBeGreaterThan(0.66);
    expect(mean(atCap)).toBeLessThan(0.01);
  });

  test("NoBackoff: every wait 0", () => {
    const run = runOperation(configured(peerPolicy({ maxAttempts: 0 })), Array(10).fill(Outcome.TRANSIENT));
    expect(run.waits).toEqual(Array(10).fill(0));
  });
});
