// Backoff, jitter and worstCase as docs/ABI.md ("Backoff and jitter", "Worst case") define them.
import { Jitter, Limit, Outcome, PolicyFlag } from "../../../host/library/src/generated/abi.js";
import type { Prng } from "./prng.js";

/** Every flag bit a policy may set (docs/ABI.md, Policies). */
export const ALL_POLICY_FLAGS =
  PolicyFlag.JITTER_MASK |
  PolicyFlag.IDEMPOTENT |
  PolicyFlag.SESSION |
  PolicyFlag.KICK |
  PolicyFlag.SPREAD_FIRST |
  PolicyFlag.SPREAD_DROP;

/** A policy slot's fields, exactly as setPolicy accepted them. */
export interface Policy {
  maxAttempts: number;
  attemptTimeout: number;
  baseDelay: number;
  maxDelay: number;
  throttleBaseDelay: number;
  deadline: number;
  flags: number;
  stableAfter: number;
  spread: number;
  breakAfter: number;
  breakBase: number;
  breakCap: number;
  /** The cap of a server's Retry-After; 0: maxDelay. */
  maxRetryAfter: number;
}

/** min(cap, b * growth^(n-1)), without overflow (n >= 1). */
export function ceiling(b: number, n: number, cap: number, growth = 2): number {
  if (b === 0) return 0;
  let c = b;
  for (let i = 1; i < n && c < cap; i++) c *= growth;
  return Math.min(c, cap);
}

/** The base `b` of a retry after a failure with `outcome`. */
export function retryBase(p: Policy, outcome: number): number {
  return Math.min(outcome === Outcome.THROTTLED ? p.throttleBaseDelay : p.baseDelay, p.maxDelay);
}

/**
 * The wait drawn at backoff level n (for a request: after attempt n failed with `outcome`);
 * `prev` is the operation's previous drawn wait, 0 when it has none.
 */
export function drawWait(p: Policy, outcome: number, n: number, prev: number, prng: Prng): number {
  const b = retryBase(p, outcome);
  const c = ceiling(b, n, p.maxDelay);
  switch (p.flags & PolicyFlag.JITTER_MASK) {
    case Jitter.NONE:
      return c;
    case Jitter.EQUAL: {
      const half = Math.floor(c / 2);
      return c - half + prng.uniform(0, half);
    }
    case Jitter.DECORRELATED: {
      // The cap bounds the range, not the draw: no wait piles up at the cap.
      const from = prev === 0 ? b : prev;
      return prng.uniform(b, Math.min(p.maxDelay, Math.max(b, from * 3)));
    }
    default:
      return prng.uniform(0, c);
  }
}

/** worstCase(policy): attempts * timeout + the retry ceilings, bounded by the deadline, saturated. */
export function worstCase(p: Policy): number {
  if (p.maxAttempts === 0) return p.deadline !== 0 ? p.deadline : Limit.MAX_SPAN;
  const b = Math.min(Math.max(p.baseDelay, p.throttleBaseDelay), p.maxDelay);
  const decorrelated = (p.flags & PolicyFlag.JITTER_MASK) === Jitter.DECORRELATED;
  // Retry n's bound: min(cap, b * 2^(n-1)), or min(cap, b * 3^n) under DECORRELATED.
  const bound = (n: number) => (decorrelated ? ceiling(b, n + 1, p.maxDelay, 3) : ceiling(b, n, p.maxDelay));
  let total = p.maxAttempts * p.attemptTimeout;
  for (let n = 1; n < p.maxAttempts && total < Limit.MAX_SPAN; n++) total += bound(n);
  if (p.deadline !== 0) total = Math.min(total, p.deadline);
  return Math.min(total, Limit.MAX_SPAN);
}
