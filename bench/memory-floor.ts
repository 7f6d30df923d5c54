// The machine's floor under bench:fleet's cost growth. Every event that reaches a device (a
// wake, an answer) reaches it at a random place in memory: at 1,000 devices those places are
// in the processor's caches, at a million in main memory. So a simulator that keeps each
// device's state apart and reaches it once per such event, however it is laid out, pays at
// least what one random touch costs more at that size, once per device event. Measured here
// with nothing else of the simulator: one word of a random state block a touch, each touch's
// place drawn from the word before (as an event's work waits for its device's memory), over
// as many blocks as devices, each as long as the module's state block.
import { prepareInstances } from "../host/tools/src/fleet/instances.js";

const TOUCHES = 4_000_000;
/** What the touches read, kept so that the loop is not dropped. */
let sink = 0;

/** Ns per touch among `blocks` state blocks. */
export function touchNs(blocks: number): number {
  const stride = prepareInstances(1)[0].stateBytes() / 4;
  // Filled before the clock starts, so that every page is mapped: a fleet's are.
  const words = new Uint32Array(blocks * stride).fill(1);
  let s = 0x9e3779b9;
  const start = performance.now();
  for (let k = 0; k < TOUCHES; k++) {
    s ^= words[((s >>> 0) % blocks) * stride];
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
  }
  const ns = ((performance.now() - start) * 1e6) / TOUCHES;
  sink ^= s;
  return ns;
}

/** The floor at one fleet size. */
export interface FloorPoint {
  devices: number;
  /** Ns per touch among `devices` blocks. */
  touchNs: number;
  /** 1,000 devices' cost per device-second with the touches' extra time at this size. */
  usPerDeviceSecond: number;
}

export interface MemoryFloor {
  /** Events that reached a device, per device-second (the largest run's). */
  deviceEventsPerDeviceSecond: number;
  /** The floor at each size, 1,000 devices first. */
  bySize: FloorPoint[];
  /** The largest size's floor over 1,000 devices' cost: the least growth a design that
   * reaches each event's device in memory shows on this machine. */
  growth: number;
}

/** The floor at each of `sizes` (1,000 first), given 1,000 devices' µs per device-second. */
export function memoryFloor(sizes: number[], smallUs: number, eventsPerDeviceSecond: number): MemoryFloor {
  const round = (x: number) => Math.round(x * 100) / 100;
  const touches = sizes.map(touchNs);
  const bySize = sizes.map((devices, k) => ({
    devices,
    touchNs: round(touches[k]),
    usPerDeviceSecond: round(smallUs + (eventsPerDeviceSecond * Math.max(0, touches[k] - touches[0])) / 1000),
  }));
  return {
    deviceEventsPerDeviceSecond: round(eventsPerDeviceSecond),
    bySize,
    growth: round(bySize[bySize.length - 1].usPerDeviceSecond / smallUs),
  };
}
