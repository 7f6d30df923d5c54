// The module's PRNG as docs/ABI.md ("PRNG") describes it: xoshiro128** seeded from a 64-bit
// seed through splitmix64. BigInt only for seeding; draws are plain u32 arithmetic.

const MASK64 = (1n << 64n) - 1n;

/** splitmix64's output function. */
export function mix(z: bigint): bigint {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;

export class Prng {
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;

  /** Seeds from `S = seedHi << 32 | seedLo` (both taken as u32). */
  seed(seedLo: number, seedHi: number): void {
    const s = (BigInt(seedHi >>> 0) << 32n) | BigInt(seedLo >>> 0);
    const a = mix((s + 0x9e3779b97f4a7c15n) & MASK64);
    const b = mix((s + 0x3c6ef372fe94f82an) & MASK64);
    this.s0 = Number(a & 0xffffffffn);
    this.s1 = Number(a >> 32n);
    this.s2 = Number(b & 0xffffffffn);
    this.s3 = Number(b >> 32n);
    // Never all four 0: mix is a bijection and a, b come from different inputs.
  }

  /** s0 to s3, as an image holds them. */
  get state(): number[] {
    return [this.s0, this.s1, this.s2, this.s3];
  }

  set state([s0, s1, s2, s3]: number[]) {
    Object.assign(this, { s0, s1, s2, s3 });
  }

  /** xoshiro128**: the next u32. */
  next(): number {
    const r = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ t) >>> 0;
    this.s3 = rotl(this.s3, 11);
    return r;
  }

  /** lo + floor(next() * (hi - lo + 1) / 2^32), exact: the 64-bit product is split in 16-bit halves. */
  uniform(lo: number, hi: number): number {
    const x = this.next();
    const range = hi - lo + 1;
    const high = Math.floor(x / 65536) * range;
    const low = (x % 65536) * range;
    return lo + Math.floor((high + Math.floor(low / 65536)) / 65536);
  }
}
