// The loop's gap figures, fed with made-up pass times.
import { describe, expect, it } from "vitest";
import { LoopStats } from "../../../../host/tools/src/device/loop-stats.js";
import { PAGE } from "../../../../host/tools/src/device/generated/app-config.js";

/** Passes starting at the given times (ms), each ending at once; `stalled`: indexes of stalled passes. */
function run(starts: number[], stalled: number[] = []): LoopStats {
  const stats = new LoopStats();
  starts.forEach((t, i) => {
    stats.passStarted(t);
    stats.passEnded(t, stalled.includes(i));
  });
  return stats;
}

describe("loop stats", () => {
  it("takes the largest gap and its p99 to the whole ms above", () => {
    const starts = Array.from({ length: 101 }, (_, i) => i * 5);
    starts.push(500 + 12.5); // one gap of 12.5 ms among 100 gaps of 5 ms
    const f = run(starts).snapshot();
    expect(f.maxGapMs).toBe(12.5);
    expect(f.p99GapMs).toBe(6);
    expect(f.passes).toBe(102);
  });

  it("counts the gap after a stalled pass apart", () => {
    const f = run([0, 5, 805, 810], [1]).snapshot();
    expect([f.maxGapMs, f.maxStalledGapMs, f.stalls]).toEqual([5, 800, 1]);
  });

  it("starts the maxima afresh on reset but keeps counting passes", () => {
    const stats = run([0, 50, 55]);
    stats.reset();
    stats.passStarted(60);
    expect(stats.snapshot()).toMatchObject({ maxGapMs: 5, p99GapMs: 6, passes: 4 });
  });

  it("splits the start-up's gaps from the steady state's, and a wake from sleep starts up again", () => {
    const S = PAGE.loopStartupMs;
    const stats = run([0, 300, S - 5, S, S + 20]); // 300 ms of start-up, then 20 ms once steady
    expect(stats.snapshot()).toMatchObject({ maxGapMs: S - 305, steadyMaxGapMs: 20 });
    stats.resume();
    [S + 60_000, S + 60_400, S + 60_410].forEach((t) => (stats.passStarted(t), stats.passEnded(t, false)));
    expect(stats.snapshot()).toMatchObject({ maxGapMs: S - 305, steadyMaxGapMs: 20 });
  });
});
