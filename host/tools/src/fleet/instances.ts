// How the fleet's devices are held. Either one module instance per device (what a real
// fleet is, and costly here: each instance reserves about 10 GiB of address space for V8's
// guard regions and about 15 KB of RSS, so some 12,000 of them exhaust the process), or a
// pool: one instance serves every device, and each device is only its state block
// (docs/ABI.md, State block), kept in one buffer and copied into the instance when an
// event reaches the device. The block is the device's whole module state, so both give
// the same run (test/host/tools/fleet/pool.test.ts). Persistence stays save/restore.
import { compileModule, instantiate, type TickRetryApi } from "tickretry";

/** The devices' module instances, as the simulator sees them. */
export interface Instances {
  /** The instance device `i`'s loop calls (the pool: its one shared instance). */
  api(i: number): TickRetryApi;
  /** Makes device `i`'s state the state its instance holds: call it before anything of
   * device `i` touches the module. */
  enter(i: number): void;
}

// Module instances outlive runs: init wipes an instance completely, so the next run (or
// strategy) re-seeds it instead of paying for a new instance.
const instances: TickRetryApi[] = [];

/** Makes sure n instances exist (compiling the module once), so a run or a benchmark need
 * not pay for instantiation; returns them. */
export function prepareInstances(n: number): TickRetryApi[] {
  const module = compileModule();
  while (instances.length < n) instances.push(instantiate(module));
  return instances;
}

/** Bytes of each device's slot in the pool's buffer. A block is mostly zeros (the policies
 * and operation slots a device never used), so the slot keeps only its chunks that are not
 * all 0; a device with more of them (one that has used more of its operation slots) keeps
 * a whole copy instead. 640 bytes hold every device's chunks in the experiment (strategy
 * C, seed 42, 5,000 devices: 5 to 8 chunks of 64 bytes). */
export const KEPT_BYTES = 640;

/** masks[] bit of a device whose block is a whole copy of its own. */
const WHOLE = 0x8000_0000;

/**
 * One instance, `devices` state blocks. The instance holds one device's block at a time
 * (the one entered last); entering another copies that one back and the new one's in.
 * The block is cut into chunks (a 64-byte cache line, or more for a block of more than 31
 * of them); each device's slot of `keptBytes` in one buffer holds its chunks that are not
 * all 0, in order, and its mask says which they are. A device whose chunks ever outgrow
 * the slot moves to a whole copy of its own for good. A swap so copies only the memory a
 * device uses. A block of zeros is a fresh instance, so the buffer starts as `devices`
 * fresh instances.
 */
export class StatePool implements Instances {
  private readonly shared: TickRetryApi;
  /** The instance's block, as words. */
  private readonly live: Uint32Array;
  /** Words of a chunk, chunks of the block, and chunks a device's slot holds. */
  private readonly chunk: number;
  private readonly chunks: number;
  private readonly slotChunks: number;
  private readonly states: Uint32Array;
  /** Per device, bit c: chunk c is in its slot (the others are 0); or WHOLE. */
  private readonly masks: Uint32Array;
  private readonly whole = new Map<number, Uint32Array>();
  /** The chunks of `live` that may not be 0. */
  private liveMask: number;
  private current = -1;

  constructor(devices: number, keptBytes = KEPT_BYTES) {
    this.shared = prepareInstances(1)[0];
    const words = this.shared.stateBytes() / 4;
    this.chunk = Math.max(16, Math.ceil(words / 31));
    this.chunks = Math.ceil(words / this.chunk);
    this.slotChunks = Math.min(this.chunks, Math.floor(keptBytes / 4 / this.chunk));
    this.live = new Uint32Array(this.shared.memory.buffer, this.shared.stateAddress(), words);
    this.states = new Uint32Array(devices * this.slotChunks * this.chunk);
    this.masks = new Uint32Array(devices);
    // The instance may hold an earlier run's device: no device of this one.
    this.liveMask = 2 ** this.chunks - 1;
  }

  api(): TickRetryApi {
    return this.shared;
  }

  enter(i: number): void {
    if (i === this.current) return;
    if (this.current >= 0) this.leave(this.current);
    const mask = this.masks[i];
    if (mask === WHOLE) {
      this.live.set(this.whole.get(i)!);
      this.liveMask = 2 ** this.chunks - 1;
    } else {
      const { live, states, chunk } = this;
      let at = i * this.slotChunks * chunk;
      for (let c = 0, w = 0; c < this.chunks; c++, w += chunk) {
        const end = Math.min(w + chunk, live.length);
        if (mask & (1 << c)) at += copyWords(live, w, states, at, at + end - w);
        else if (this.liveMask & (1 << c)) live.fill(0, w, end);
      }
      this.liveMask = mask;
    }
    this.current = i;
  }

  /** Bytes the pool holds for its devices' states, copies of whole blocks included. */
  bytes(): number {
    return this.states.byteLength + this.masks.byteLength + this.whole.size * this.live.byteLength;
  }

  private leave(d: number): void {
    const { live, chunk } = this;
    let mask = 0;
    let count = 0;
    for (let c = 0, w = 0; c < this.chunks; c++, w += chunk) {
      if (!allZero(live, w, Math.min(w + chunk, live.length))) ((mask |= 1 << c), count++);
    }
    this.liveMask = mask;
    if (this.masks[d] === WHOLE) this.whole.get(d)!.set(live);
    else if (count <= this.slotChunks) {
      const states = this.states;
      let at = d * this.slotChunks * chunk;
      for (let c = 0, w = 0; c < this.chunks; c++, w += chunk) {
        if (mask & (1 << c)) at += copyWords(states, at, live, w, Math.min(w + chunk, live.length));
      }
      this.masks[d] = mask;
    } else {
      this.whole.set(d, live.slice());
      this.masks[d] = WHOLE;
    }
  }
}

// The scan and the copies of a swap, four words a step: they are most of what a swap costs,
// and V8 runs a loop unrolled by hand some twice as fast as a word at a time.

/** Whether words [from, to) of `a` are all 0. */
function allZero(a: Uint32Array, from: number, to: number): boolean {
  let any = 0;
  let k = from;
  for (; k + 4 <= to; k += 4) any |= a[k] | a[k + 1] | a[k + 2] | a[k + 3];
  for (; k < to; k++) any |= a[k];
  return any === 0;
}

/** Copies words [from, to) of `src` into `dst` from `at`; returns how many. */
function copyWords(dst: Uint32Array, at: number, src: Uint32Array, from: number, to: number): number {
  let k = from;
  for (; k + 4 <= to; k += 4, at += 4) {
    dst[at] = src[k];
    dst[at + 1] = src[k + 1];
    dst[at + 2] = src[k + 2];
    dst[at + 3] = src[k + 3];
  }
  for (; k < to; k++) dst[at++] = src[k];
  return to - from;
}
