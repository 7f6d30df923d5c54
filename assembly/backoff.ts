// Backoff ceilings and jitter. Retry n (the one after attempt n failed) has the ceiling
// min(cap, base * 2^(n-1)).
import { JITTER_DECORRELATED, JITTER_EQUAL, JITTER_NONE } from "./generated/constants";
import { uniform } from "./random";

/**
 * min(cap, base * 2^(retry - 1)) for retry >= 1 (a level or a count of opens, raised before
 * every draw), without overflow: base * 2^shift fits under cap exactly when
 * base <= cap >> shift, and with cap < 2^31 a shift of 31 leaves cap for any base but 0.
 */
export function ceiling(base: u32, cap: u32, retry: u32): u32 {
  const shift: u32 = min(retry, 32) - 1;
  return base <= cap >> shift ? base << shift : cap;
}

/**
 * The jittered wait before retry `retry` (>= 1). `previous` is the last wait this operation
 * drew (0 before its first retry). Every mode but NONE draws exactly one random number.
 */
export function jitteredDelay(mode: u32, base: u32, cap: u32, retry: u32, previous: u32): u32 {
  // Every mode but NONE draws uniformly between lo and hi.
  let lo: u32;
  let hi: u32;
  if (mode == JITTER_DECORRELATED) {
    lo = min(base, cap);
    const prev = previous == 0 ? lo : previous;
    // min(cap, prev * 3) without overflow, then at least lo (lo <= cap).
    hi = max(lo, prev > cap / 3 ? cap : prev * 3);
  } else {
    hi = ceiling(base, cap, retry); // cap for a base above cap
    if (mode == JITTER_NONE) return hi;
    lo = mode == JITTER_EQUAL ? hi - (hi >> 1) : 0;
  }
  return uniform(lo, hi);
}
