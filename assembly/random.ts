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
  const seed = ((<u64>seedHi) << 32) | (<u64>seedLo);
  const a = splitmix64(seed + 0x9e3779b97f4a7c15);
  const b = splitmix64(seed + 0x3c6ef372fe94f82a);
  random.s0 = <u32>a;
  random.s1 = <u32>(a >> 32);
  random.s2 = <u32>b;
  random.s3 = <u32>(b >> 32);
  // xoshiro must not start from all zeros.
  if ((random.s0 | random.s1 | random.s2 | random.s3) == 0) random.s0 = 1;
}

/** The next 32 random bits. */
export function nextRandom(): u32 {
  const result = rotl<u32>(random.s1 * 5, 7) * 9;
  const t = random.s1 << 9;
  random.s2 ^= random.s0;
  random.s3 ^= random.s1;
  random.s1 ^= random.s2;
  random.s0 ^= random.s3;
  random.s2 ^= t;
  random.s3 = rotl<u32>(random.s3, 11);
  return result;
}

/** Uniform in [lo, hi] (hi >= lo), by multiply-shift of one draw. */
export function uniform(lo: u32, hi: u32): u32 {
  return lo + <u32>((<u64>nextRandom() * (<u64>(hi - lo) + 1)) >> 32);
}
