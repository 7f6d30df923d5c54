// The contention experiment: every client's write succeeds exactly once, a run is a pure
// function of its seed, the strategies wait what the published formulas say (or, where
// the module's differ, what docs/fleet.md says), and the article's findings hold.
import { describe, expect, it } from "vitest";
import { Outcome } from "../../../../host/library/src/generated/abi.js";
import { runContentionExperiment } from "../../../../host/tools/src/contention/experiment.js";
import { runContention } from "../../../../host/tools/src/contention/simulator.js";
import {
  CONTENTION_STRATEGIES,
  PUBLISHED,
  TICKS_PER_MS,
} from "../../../../host/tools/src/contention/strategies.js";
import { configure } from "../../../../host/library/src/policy.js";
import { create } from "../../../../host/library/src/tickretry.js";

const S = CONTENTION_STRATEGIES;
const MS = TICKS_PER_MS;

/** The waits a module instance draws for `retries` failed attempts of one operation. */
function moduleWaits(name: string, retries: number, seed = 7n): number[] {
  const api = create(seed);
  configure(api, name, 0, S[name].policy);
  let now = 0;
  const h = api.begin(0, now);
  const waits: number[] = [];
  for (let n = 0; n < retries; n++) {
    expect(api.poll(now)).toBe(h);
    expect(api.report(h, api.attempt(h), Outcome.TRANSIENT, 0, now)).toBe(0);
    const wait = api.nextDue(now);
    waits.push(wait);
    now += wait;
  }
  return waits;
}

describe("contention strategies", () => {
  it("exponential: the module's ceilings are the published min(2 s, 5 ms * 2^n)", () => {
    const want = Array.from({ length: 12 }, (_, i) => Math.min(2000, 5 * 2 ** (i + 1)) * MS);
    expect(moduleWaits("exponential", 12)).toEqual(want);
  });

  it("full and equal: every wait within the published range for its retry", () => {
    for (const seed of [1n, 2n, 3n]) {
      moduleWaits("full", 12, seed).forEach((w, i) => {
        expect(w).toBeGreaterThanOrEqual(0);
        expect(w).toBeLessThanOrEqual(Math.min(2000, 5 * 2 ** (i + 1)) * MS);
      });
      moduleWaits("equal", 12, seed).forEach((w, i) => {
        const v = Math.min(2000, 5 * 2 ** (i + 1)) * MS;
        expect(w).toBeGreaterThanOrEqual(v / 2);
        expect(w).toBeLessThanOrEqual(v);
      });
    }
  });

  it("decorrelated: the module draws below the cap where the published formula sits at it", () => {
    // A policy allows 255 attempts. Saturated (past the first few retries), the published waits are min(cap, U(5 ms,
    // 3 * previous)): at the cap about 2/3 of the time. The module draws U(5 ms, cap).
    const waits = moduleWaits("decorrelated", 200).slice(20);
    const atCap = waits.filter((w) => w === 2000 * MS).length / waits.length;
    expect(atCap).toBeLessThan(0.02);
    expect(Math.max(...waits)).toBeLessThanOrEqual(2000 * MS);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(5 * MS);
    let previous = 0;
    let k = 0;
    const uniform = () => ((k = (k * 1103515245 + 12345) % 2 ** 31), k / 2 ** 31);
    const published = Array.from(
      { length: 400 },
      () => (previous = S["decorrelated-published"].hostWait!(previous, uniform)),
    );
    const publishedAtCap = published.slice(20).filter((w) => w === 2000 * MS).length / 180;
    expect(publishedAtCap).toBeGreaterThan(0.5);
    expect(publishedAtCap).toBeLessThan(0.8);
  });
});

describe("contention runs", () => {
  it.each(Object.keys(S))("every client succeeds once; writes between N and N^2 (%s)", (name) => {
    for (const clients of [1, 2, 25]) {
      const r = runContention(S[name], clients, 3, 0);
      expect(r.calls).toBeGreaterThanOrEqual(clients);
      expect(r.calls).toBeLessThanOrEqual(clients * clients);
      // At least one read, one read reply, one write and its reply: four network delays.
      expect(r.completionUs).toBeGreaterThan(0);
    }
  });

  it("with one client, the first write succeeds: four messages, one call", () => {
    const r = runContention(S.none, 1, 9, 0);
    expect(r.calls).toBe(1);
    // |Normal(10 ms, 2 ms)| four times: far from 0 and from 80 ms.
    expect(r.completionUs).toBeGreaterThan(20 * MS);
    expect(r.completionUs).toBeLessThan(70 * MS);
  });

  it("repeats a run exactly for the same seed and run, and not for another", () => {
    expect(runContention(S.full, 40, 5, 2)).toEqual(runContention(S.full, 40, 5, 2));
    expect(runContention(S.full, 40, 5, 2)).not.toEqual(runContention(S.full, 40, 5, 3));
    expect(runContention(S.full, 40, 5, 2)).not.toEqual(runContention(S.full, 40, 6, 2));
  });
});

describe("the article's findings, 100 clients, mean over 40 runs", () => {
  const rows = runContentionExperiment(
    PUBLISHED.map((n) => S[n]),
    [100],
    40,
    1,
  );
  const r = Object.fromEntries(rows.map((row) => [row.strategy, row]));

  it("no backoff does the most work; capped exponential backoff without jitter little less", () => {
    expect(r.none.calls).toBeGreaterThan(r.exponential.calls);
    expect(r.exponential.calls).toBeGreaterThan(0.6 * r.none.calls);
  });

  it("jitter cuts the work well below exponential backoff's; full jitter the least or close", () => {
    for (const name of ["full", "equal", "decorrelated"])
      expect(r[name].calls).toBeLessThan(0.6 * r.exponential.calls);
    expect(r.full.calls).toBeLessThanOrEqual(1.05 * Math.min(r.equal.calls, r.decorrelated.calls));
  });

  it("exponential backoff without jitter takes by far the longest", () => {
    for (const name of ["none", "full", "equal", "decorrelated"]) {
      expect(r.exponential.completionMs).toBeGreaterThan(4 * r[name].completionMs);
    }
  });
});
