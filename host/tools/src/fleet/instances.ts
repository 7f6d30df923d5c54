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

/** Bytes of each device's block the pool keeps in its buffer; a device whose block has
 * anything past them (one that has used more of its operation slots) keeps a whole copy
 * instead. A block ends in zeros for the slots a device never used, and most devices of
 * the experiment use a few: 640 bytes hold the blocks of 96% of them (5,000 devices, C,
 * seed 42). */
export const KEPT_BYTES = 640;

/** True when every word of `words` is 0. */
function allZero(words: Uint32Array): boolean {
  for (let i = 0; i < words.length; i++) if (words[i] !== 0) return false;
  return true;
}

/**
 * One instance, `devices` state blocks. The instance holds one device's block at a time
 * (the one entered last); entering another copies that one back and the new one's in.
 * The buffer keeps the first `keptBytes` of each block, the rest being zeros; a device
 * whose block ever reaches past them moves to a whole copy of its own for good. A block
 * of zeros is a fresh instance, so the buffer starts as `devices` fresh instances.
 */
export class StatePool implements Instances {
  private readonly shared: TickRetryApi;
  /** The instance's block, as words: all of it, the part kept, the rest. */
  private readonly live: Uint32Array;
  private readonly head: Uint32Array;
  private readonly tail: Uint32Array;
  private readonly kept: number;
  private readonly states: Uint32Array;
  private readonly whole = new Map<number, Uint32Array>();
  /** The tail may hold a whole copy's words: the next kept device clears it. */
  private tailDirty = false;
  private current = -1;

  constructor(devices: number, keptBytes = KEPT_BYTES) {
    this.shared = prepareInstances(1)[0];
    const words = this.shared.stateBytes() / 4;
    this.kept = Math.min(words, Math.floor(keptBytes / 4));
    this.live = new Uint32Array(this.shared.memory.buffer, this.shared.stateAddress(), words);
    this.head = this.live.subarray(0, this.kept);
    this.tail = this.live.subarray(this.kept);
    this.states = new Uint32Array(devices * this.kept);
    // The instance may hold an earlier run's device: no device of this one.
    this.tailDirty = true;
  }

  api(): TickRetryApi {
    return this.shared;
  }

  enter(i: number): void {
    if (i === this.current) return;
    if (this.current >= 0) this.leave(this.current);
    const whole = this.whole.get(i);
    if (whole !== undefined) {
      this.live.set(whole);
      this.tailDirty = true;
    } else {
      const at = i * this.kept;
      this.head.set(this.states.subarray(at, at + this.kept));
      if (this.tailDirty) this.tail.fill(0);
      this.tailDirty = false;
    }
    this.current = i;
  }

  /** Bytes the pool holds for its devices' states, copies of whole blocks included. */
  bytes(): number {
    return this.states.byteLength + this.whole.size * this.live.byteLength;
  }

  private leave(d: number): void {
    const whole = this.whole.get(d);
    if (whole !== undefined) whole.set(this.live);
    else if (allZero(this.tail)) this.states.set(this.head, d * this.kept);
    else {
      this.whole.set(d, this.live.slice());
      this.tailDirty = true;
    }
  }
}
