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

/**
 * One instance, `devices` state blocks in one buffer. The instance holds one device's block
 * at a time (the one entered last); entering another copies that one back and the new one's
 * in, each one native copy of the whole block. Copying only a block's non-zero parts (most of
 * it is the policies and operation slots a device never used) kept 640 bytes a device instead
 * of 1,600, but finding them cost more than the copies save: 1.1 to 1.9 µs a swap against
 * 0.14 to 0.56 µs, at 1,000 to 1,000,000 devices. A block of zeros is a fresh instance, so the
 * buffer starts as `devices` fresh instances.
 */
export class StatePool implements Instances {
  private readonly shared: TickRetryApi;
  /** The instance's block, as words. */
  private readonly live: Uint32Array;
  private readonly states: Uint32Array;
  private current = -1;

  constructor(devices: number) {
    this.shared = prepareInstances(1)[0];
    const words = this.shared.stateBytes() / 4;
    this.live = new Uint32Array(this.shared.memory.buffer, this.shared.stateAddress(), words);
    this.states = new Uint32Array(devices * words);
  }

  api(): TickRetryApi {
    return this.shared;
  }

  enter(i: number): void {
    if (i === this.current) return;
    const words = this.live.length;
    if (this.current >= 0) this.states.set(this.live, this.current * words);
    this.live.set(this.states.subarray(i * words, (i + 1) * words));
    this.current = i;
  }
}
