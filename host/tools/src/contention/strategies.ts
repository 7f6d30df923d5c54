// The strategies of the contention experiment (Brooker, "Exponential Backoff And Jitter",
// 2015) as tickretry policies, in ticks of 1 µs. The published waits, for the n-th retry
// (n from 1) with base 5 ms and cap 2 s:
//   none          0
//   exponential   min(cap, base * 2^n)
//   full          uniform(0, min(cap, base * 2^n))
//   equal         v / 2 + uniform(0, v / 2), v = min(cap, base * 2^n)
//   decorrelated  sleep = min(cap, uniform(base, 3 * sleep)), sleep starting at base
// The module's ceiling for retry n is min(cap, base * 2^(n-1)) (assembly/constants.json), one
// doubling behind: a module base of 10 ms gives exactly the published ceilings. Its
// decorrelated mode draws uniform(base, min(cap, 3 * previous)): it clamps the range
// before drawing where the published formula clamps the draw, which piles the published
// waits up at the cap. "decorrelated-published" shows the difference: the host draws the
// published wait and hands it to the module as a Retry-After, with the policy's own wait 0.
import type { PolicySpec } from "../fleet/strategies.js";
import { Limit } from "tickretry";

/** Ticks per ms: the experiment's clock runs in µs. */
export const TICKS_PER_MS = 1000;
const BASE = 5 * TICKS_PER_MS;
const CAP = 2000 * TICKS_PER_MS;

/** Retry until the write succeeds: as many attempts as the module allows, no attempt
 * timeout the model could reach (it has none), no deadline. */
const UNTIL_SUCCESS: PolicySpec = {
  maxAttempts: Limit.MAX_ATTEMPTS,
  attemptTimeout: Limit.MAX_SPAN,
  baseDelay: 0,
  maxDelay: CAP,
  throttleBaseDelay: 0,
  deadline: 0,
  jitter: "NONE",
  idempotent: true,
};

export interface ContentionStrategy {
  name: string;
  description: string;
  policy: PolicySpec;
  /** When set, the host draws each wait by this published formula and reports it as a
   * Retry-After (the policy's own wait is 0); `previous` is the last wait, 0 at first. */
  hostWait?: (previous: number, uniform: () => number) => number;
}

export const CONTENTION_STRATEGIES: Record<string, ContentionStrategy> = {
  none: { name: "none", description: "retry at once", policy: UNTIL_SUCCESS },
  exponential: {
    name: "exponential",
    description: "NONE jitter, base 10 ms: waits min(2 s, 5 ms * 2^n)",
    policy: { ...UNTIL_SUCCESS, baseDelay: 2 * BASE },
  },
  full: {
    name: "full",
    description: "FULL jitter over the same ceilings",
    policy: { ...UNTIL_SUCCESS, baseDelay: 2 * BASE, jitter: "FULL" },
  },
  equal: {
    name: "equal",
    description: "EQUAL jitter over the same ceilings",
    policy: { ...UNTIL_SUCCESS, baseDelay: 2 * BASE, jitter: "EQUAL" },
  },
  decorrelated: {
    name: "decorrelated",
    description: "DECORRELATED jitter, base 5 ms: uniform(5 ms, min(2 s, 3 * previous))",
    policy: { ...UNTIL_SUCCESS, baseDelay: BASE, jitter: "DECORRELATED" },
  },
  "decorrelated-published": {
    name: "decorrelated-published",
    description: "min(2 s, uniform(5 ms, 3 * previous)), drawn by the host, given as Retry-After",
    policy: UNTIL_SUCCESS,
    hostWait: (previous, uniform) => {
      const sleep = previous === 0 ? BASE : previous;
      return Math.min(CAP, Math.round(BASE + uniform() * (3 * sleep - BASE)));
    },
  },
  "full-base5": {
    name: "full-base5",
    description: "FULL jitter with the published base (5 ms) as the module's base: half the ceilings",
    policy: { ...UNTIL_SUCCESS, baseDelay: BASE, jitter: "FULL" },
  },
};

/** The five strategies of the article, in its order. */
export const PUBLISHED = ["none", "exponential", "full", "equal", "decorrelated"];
