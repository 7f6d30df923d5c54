// The figures computed from a run's record: peaks in fixed buckets, nearest-rank
// percentiles, the affected window's success rate, and the recovery time as defined.
import { describe, expect, it } from "vitest";
import { EndReason } from "../../../../host/library/src/generated/abi.js";
import { aggregate, recoveryMs, RunRecord, summarize } from "../../../../host/tools/src/fleet/metrics.js";
import { experimentSettings } from "../../../../host/tools/src/fleet/settings.js";

const settings = experimentSettings();

/** Answers at `time`: ok successes that spent `ms` each in the dependency, and failures. */
function answers(r: RunRecord, time: number, ok: number, failed = 0, ms = 40): void {
  for (let i = 0; i < ok; i++) r.answer(time, true, time - ms);
  for (let i = 0; i < failed; i++) r.answer(time, false, time);
}

describe("recoveryMs", () => {
  it("is 0 when nothing goes wrong after the resume", () => {
    const r = new RunRecord();
    answers(r, 10_050, 10);
    expect(recoveryMs(r, settings)).toBe(0);
  });

  it("ends at the bucket after the last one with too many failures", () => {
    const r = new RunRecord();
    answers(r, 10_000, 0, 100);
    answers(r, 11_250, 94, 6); // 94% successes: below 0.95
    answers(r, 11_350, 95, 5); // 95%: healthy
    expect(recoveryMs(r, settings)).toBe(1_300);
  });

  it("counts a backlog (slow answers) as not recovered", () => {
    const r = new RunRecord();
    answers(r, 12_010, 10, 0, 201);
    answers(r, 12_110, 10, 0, 200);
    expect(recoveryMs(r, settings)).toBe(2_100);
  });

  it("is 0 when the run ends before the resume", () => {
    const r = new RunRecord();
    answers(r, 4_000, 0, 10);
    expect(recoveryMs(r, { ...settings, durationMs: 5_000 })).toBe(0);
  });

  it("ignores what happened before the resume, and is the rest of the run when never healthy", () => {
    const r = new RunRecord();
    answers(r, 9_000, 0, 50);
    expect(recoveryMs(r, settings)).toBe(0);
    answers(r, 29_950, 0, 1);
    expect(recoveryMs(r, settings)).toBe(20_000);
  });
});

describe("summarize", () => {
  it("takes peaks in fixed buckets, percentiles by nearest rank, success in the affected window", () => {
    const r = new RunRecord();
    // 1 s bucket [10 s, 11 s): 7 + 5 sends; the 100 ms peak is the 7 at 10.9 s.
    for (let i = 0; i < 7; i++) r.send(10_950, i > 0);
    for (let i = 0; i < 5; i++) r.send(10_000, false);
    // Straddling 11 s: 6 + 6, in two 1 s buckets.
    for (let i = 0; i < 6; i++) r.send(11_950, false);
    for (let i = 0; i < 6; i++) r.send(12_000, false);
    // 100 operations outside the affected window with latencies 1..100 ms ...
    for (let i = 1; i <= 100; i++) r.operation(1_000, 1_000 + i, EndReason.SUCCEEDED);
    // ... and four of 1 ms at its edges: [8.5 s, 15 s) holds the first two.
    r.operation(8_500, 8_501, EndReason.SUCCEEDED);
    r.operation(14_999, 15_000, EndReason.DEADLINE);
    r.operation(15_000, 15_001, EndReason.SUCCEEDED);
    r.operation(8_499, 8_500, EndReason.BUDGET);
    const row = summarize("X", r, settings);
    expect(row.peak100ms).toBe(7);
    expect(row.peak1s).toBe(12);
    expect(row.totalRequests).toBe(24);
    expect(row.retriesSent).toBe(6);
    // 104 latencies, five of them 1 ms: rank ceil(0.95 * 104) = 99 is 95 ms, rank 103 is 99 ms.
    expect(row.p95Ms).toBe(95);
    expect(row.p99Ms).toBe(99);
    expect(row.successRate).toBe(0.5);
    expect(row.operations).toBe(104);
  });

  it("aggregates seeds into means with min and max", () => {
    const r = new RunRecord();
    const a = { ...summarize("X", r, settings), peak1s: 10 };
    const b = { ...a, peak1s: 20 };
    const agg = aggregate([a, b]);
    expect([agg.peak1s, agg.min.peak1s, agg.max.peak1s, agg.seeds]).toEqual([15, 10, 20, 2]);
  });
});
