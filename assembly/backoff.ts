// Backoff ceilings and jitter. Retry n (the one after attempt n failed) has the ceiling
// min(cap, base * 2^(n-1)); worstCase uses growth 3 under decorrelated jitter, whose
// waits may grow threefold.
import { JITTER_DECORRELATED, JITTER_EQUAL, JITTER_NONE } from "./constants";
import { uniform } from "./random";

/** min(cap, base * growth^(retry - 1)), without overflow. */
export function ceiling(base: u32, cap: u32, retry: u32, growth: u32): u32 {
  let c = <u64>base;
  for (let i: u32 = 1; i < retry && c < <u64>cap; i++) c *= growth;
  return c < <u64>cap ? <u32>c : cap;
}

/** The growth factor of a jitter mode's ceilings. */
export function growthOf(mode: u32): u32 {
  return mode == JITTER_DECORRELATED ? 3 : 2;
}

/**
 * The jittered wait before retry `retry`. `previous` is the last wait this operation
 * drew (0 before its first retry). Every mode but NONE draws exactly one random number.
 */
export function jitteredDelay(mode: u32, base: u32, cap: u32, retry: u32, previous: u32): u32 {
  const b = min(base, cap);
  // Every mode but NONE draws uniformly between lo and hi.
  let lo = b;
  let hi: u32;
  if (mode == JITTER_DECORRELATED) {
    const prev = previous == 0 ? b : previous;
    hi = <u32>min(<u64>cap, max(<u64>b, <u64>prev * 3));
  } else {
    hi = ceiling(b, cap, retry, 2);
    if (mode == JITTER_NONE) return hi;
    lo = mode == JITTER_EQUAL ? hi - (hi >> 1) : 0;
  }
  return uniform(lo, hi);
}
