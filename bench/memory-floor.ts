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

export interface MemoryFloor {
  /** The fleet size compared with 1,000 devices. */
  devices: number;
  /** Ns per touch among 1,000 blocks, and among `devices`. */
  smallNs: number;
  largeNs: number;
  /** Events that reached a device, per device-second (the largest run's). */
  deviceEventsPerDeviceSecond: number;
  /** The touches' extra time at `devices`, per device-second. */
  addedUsPerDeviceSecond: number;
  /** 1,000 devices' cost per device-second with that added, over that cost: the least
   * growth a design that reaches each event's device in memory shows on this machine. */
  growth: number;
}

/** The floor for `devices` devices, given 1,000 devices' µs per device-second. */
export function memoryFloor(devices: number, smallUs: number, eventsPerDeviceSecond: number): MemoryFloor {
  const smallNs = touchNs(1000);
  const largeNs = touchNs(devices);
  const addedUs = (eventsPerDeviceSecond * Math.max(0, largeNs - smallNs)) / 1000;
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    devices,
    smallNs: round(smallNs),
    largeNs: round(largeNs),
    deviceEventsPerDeviceSecond: round(eventsPerDeviceSecond),
    addedUsPerDeviceSecond: round(addedUs),
    growth: round((smallUs + addedUs) / smallUs),
  };
}
