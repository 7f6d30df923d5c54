// How the fleet's devices are held. Either one module instance per device (what a real
// fleet is, and costly here: each instance reserves about 10 GiB of address space for V8's
// guard regions and about 15 KB of RSS, so some 12,000 of them exhaust the process), or a
// pool: one instance serves every device, and each device is only its state block
// (docs/ABI.md, State block), kept in one buffer and copied into the instance when an
// event reaches the device. The block is the device's whole module state, so both give
// the same run (test/host/tools/fleet/pool.test.ts). Persistence stays save/restore.
import { compileModule, Field, instantiate, Limit, type TickRetryApi } from "tickretry";

/** The devices' module instances, as the simulator sees them. */
export interface Instances {
  /** The instance device `i`'s loop calls (the pool: its one shared instance). */
  api(i: number): TickRetryApi;
  /** Makes device `i`'s state the state its instance holds: call it before anything of
   * device `i` touches the module. */
  enter(i: number): void;
  /** Device `i` (entered) was just restored from an image, which may fill any slot. */
  restored(i: number): void;
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

/**
 * One instance, `devices` state blocks in one buffer. The instance holds one device's block
 * at a time (the one entered last); entering another copies that one back and the new one's
 * in, each one native copy. A copy stops after the slots the device has used: the operation
 * table ends the block, and a slot stays zeros until an operation is first begun in it, the
 * lowest free first (docs/ABI.md, State block). In the outage experiment most devices use 1
 * to 3 of the 16 slots, so a copy is 190 to 220 of the block's 400 words: at 300,000 devices
 * the swaps took 17% of a run's profile instead of 21%. Finding a block's non-zero parts by
 * reading it cost more than the copies save (1.1 to 1.9 µs a swap against 0.14 to 0.56). A
 * block of zeros is a fresh instance, so the buffer starts as `devices` of them.
 */
export class StatePool implements Instances {
  private readonly shared: TickRetryApi;
  /** The instance's block as words, up to the end of slot s - 1, for each s to OPERATIONS. */
  private readonly upTo: Uint32Array[];
  private readonly states: Uint32Array;
  /** The states' buffer, kept: reading .buffer took some 40 ns of a swap. */
  private readonly buffer: ArrayBuffer;
  /** Per device, how many of its first slots may hold anything; the rest are zeros. */
  private readonly used: Uint8Array;
  private readonly words: number;
  private readonly slotsAt: number;
  private current = -1;
  /** The same count for the instance's block (before the first enter, any run's). */
  private liveUsed: number = Limit.OPERATIONS;

  constructor(devices: number) {
    this.shared = prepareInstances(1)[0];
    this.words = this.shared.stateBytes() / 4;
    this.slotsAt = this.words - Limit.OPERATIONS * Field.COUNT;
    const at = this.shared.stateAddress();
    this.upTo = Array.from({ length: Limit.OPERATIONS + 1 }, (_, s) => {
      return new Uint32Array(this.shared.memory.buffer, at, this.slotsAt + s * Field.COUNT);
    });
    this.states = new Uint32Array(devices * this.words);
    this.buffer = this.states.buffer as ArrayBuffer;
    this.used = new Uint8Array(devices);
  }

  api(): TickRetryApi {
    return this.shared;
  }

  enter(i: number): void {
    if (i === this.current) return;
    if (this.current >= 0) {
      this.liveUsed = this.usedNow();
      this.used[this.current] = this.liveUsed;
      this.states.set(this.upTo[this.liveUsed], this.current * this.words);
    }
    // As far as either block may hold anything: past its own slots, the device's are zeros.
    // A view made directly: subarray's looking up a species constructor took 60 ns of a
    // 250 ns swap at 1,000 devices.
    const length = this.upTo[Math.max(this.used[i], this.liveUsed)].length;
    this.upTo[Limit.OPERATIONS].set(new Uint32Array(this.buffer, i * this.words * 4, length));
    this.liveUsed = this.used[i];
    this.current = i;
  }

  restored(): void {
    this.liveUsed = Limit.OPERATIONS;
  }

  /** The instance's used slots now: a begin since enter took the lowest free one, so it
   * may have taken the slots after the used ones, each then of generation 1 or more. */
  private usedNow(): number {
    const live = this.upTo[Limit.OPERATIONS];
    let s = this.liveUsed;
    while (s < Limit.OPERATIONS && live[this.slotsAt + s * Field.COUNT + Field.GENERATION] !== 0) s++;
    return s;
  }
}
