// How late the main loop runs: the gap between the starts of two passes. A firmware loop
// that serves a page must keep this small; a gap that follows an injected stall is
// counted apart, since that stall is the point of the injection.

import { PAGE } from "./generated/app-config.js";

export interface LoopFigures {
  passes: number;
  /** Gap before the latest pass, ms. */
  lastGapMs: number;
  /** Largest gap since the last reset, ms, leaving out gaps after an injected stall. */
  maxGapMs: number;
  /** The same, of the gaps after the start-up (PAGE.loopStartupMs after the first pass). */
  steadyMaxGapMs: number;
  /**
   * 99th percentile of the same gaps, ms, to the next whole ms above (a histogram of 1 ms
   * buckets); on a busy machine the max is mostly the scheduler's, the p99 the loop's.
   */
  p99GapMs: number;
  /** Largest gap that followed an injected stall, ms. */
  maxStalledGapMs: number;
  /** Longest pass (the loop's own work, stalls included), ms. */
  maxPassMs: number;
  stalls: number;
}

/** Gaps of this many ms or more share the last bucket. */
const BUCKETS = 1000;

export class LoopStats {
  private figures: LoopFigures = LoopStats.zero();
  private histogram = new Uint32Array(BUCKETS);
  private gaps = 0;
  private lastStart: number | undefined;
  private lastStalled = false;
  private firstStart: number | undefined;

  private static zero(): LoopFigures {
    return {
      passes: 0,
      lastGapMs: 0,
      maxGapMs: 0,
      steadyMaxGapMs: 0,
      p99GapMs: 0,
      maxStalledGapMs: 0,
      maxPassMs: 0,
      stalls: 0,
    };
  }

  /** Call first thing in a pass. */
  passStarted(t: number): void {
    const f = this.figures;
    f.passes++;
    if (this.lastStart !== undefined) {
      const gap = t - this.lastStart;
      f.lastGapMs = gap;
      if (this.lastStalled) f.maxStalledGapMs = Math.max(f.maxStalledGapMs, gap);
      else {
        f.maxGapMs = Math.max(f.maxGapMs, gap);
        if (t - this.firstStart! >= PAGE.loopStartupMs) f.steadyMaxGapMs = Math.max(f.steadyMaxGapMs, gap);
        this.histogram[Math.min(BUCKETS - 1, Math.floor(gap))]++;
        this.gaps++;
      }
    }
    this.firstStart ??= t;
    this.lastStart = t;
    this.lastStalled = false;
  }

  /** Call last thing in a pass; stalled: the pass blocked on purpose. */
  passEnded(t: number, stalled: boolean): void {
    if (stalled) {
      this.figures.stalls++;
      this.lastStalled = true;
    }
    if (this.lastStart !== undefined)
      this.figures.maxPassMs = Math.max(this.figures.maxPassMs, t - this.lastStart);
  }

  /** The loop did not run for a while on purpose (a deep sleep): that gap is no gap, and
   * the wake is a boot, with a start-up of its own. */
  resume(): void {
    this.lastStart = undefined;
    this.firstStart = undefined;
  }

  /** Starts the maxima afresh (the bench does this at the start of each phase). */
  reset(): void {
    const { passes, lastGapMs, stalls } = this.figures;
    this.figures = { ...LoopStats.zero(), passes, lastGapMs, stalls };
    this.histogram.fill(0);
    this.gaps = 0;
  }

  snapshot(): LoopFigures {
    return { ...this.figures, p99GapMs: this.percentile(0.99) };
  }

  private percentile(p: number): number {
    const rank = Math.ceil(p * this.gaps);
    let seen = 0;
    for (let ms = 0; ms < BUCKETS; ms++) {
      seen += this.histogram[ms];
      if (seen >= rank && seen > 0) return ms + 1;
    }
    return 0;
  }
}
