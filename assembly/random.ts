// The module's PRNG: xoshiro128** seeded through splitmix64, so that a 64-bit host seed
// (hardware RNG and MAC on a board, a fixed value in tests) picks the whole sequence.
// docs/ABI.md gives the exact algorithm so a host can reproduce it.
import { RANDOM_AT, Random, STATE } from "./state";

const random = changetype<Random>(STATE + RANDOM_AT);

function splitmix64(state: u64): u64 {
  let z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

/** Seeds the generator from a 64-bit seed given as two halves. */
export function seedRandom(seedLo: u32, seedHi: u32): void {
  // splitmix64's first two outputs: s0 and s1 the low and high half of the first. xoshiro
  // must not start from all zeros, and cannot: splitmix64's mix is a bijection, so two
  // different states (seed + g, seed + 2g) never both give 0.
  let state = ((<u64>seedHi) << 32) | (<u64>seedLo);
  const at = changetype<usize>(random);
  for (let i: usize = 0; i < 16; i += 8) {
    state += 0x9e3779b97f4a7c15;
    store<u64>(at + i, splitmix64(state));
  }
}

/** Uniform in [lo, hi] (hi >= lo), by multiply-shift of the generator's next 32 bits. */
export function uniform(lo: u32, hi: u32): u32 {
  const s0 = random.s0;
  const s1 = random.s1;
  const s2 = random.s2 ^ s0;
  const s3 = random.s3 ^ s1;
  const next = rotl<u32>(s1 * 5, 7) * 9;
  random.s0 = s0 ^ s3;
  random.s1 = s1 ^ s2;
  random.s2 = s2 ^ (s1 << 9);
  random.s3 = rotl<u32>(s3, 11);
  return lo + <u32>((<u64>next * (<u64>(hi - lo) + 1)) >> 32);
}

/** The next 32 random bits (the whole range's multiply-shift is the draw itself). */
export function nextRandom(): u32 {
  return uniform(0, u32.MAX_VALUE);
}
