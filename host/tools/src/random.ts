// The host's own randomness (the fleet's think times, clock offsets, tie-breaks and
// per-device module seeds; the upstream's fault mix). Seeded, never Math.random, so a run is a pure function of its seed.

/** Mixes a 32-bit value (the murmur3 finaliser): nearby inputs give unrelated outputs. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85eb_ca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2_ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A seed for one purpose of one device: the run seed, the device index and a stream tag. */
export function deriveSeed(seed: number, device: number, stream: number): number {
  return mix32(mix32(mix32(seed >>> 0) ^ Math.imul(device + 1, 0x9e37_79b9)) ^ stream);
}

/** mulberry32: a small, fast 32-bit generator; plenty for think times and tie-breaks. */
export class Rng {
  /** The whole generator: a flyweight may keep many states elsewhere and load one here. */
  state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniform u32. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b_79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A uniform float in [0, 1). */
  next(): number {
    return this.nextU32() / 4_294_967_296;
  }
}
