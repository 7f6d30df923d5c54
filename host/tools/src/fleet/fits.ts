// How many devices one process can simulate: each holds about HEAP_BYTES_PER_DEVICE of V8
// heap (its Device, loop and tables) and about RSS_BYTES_PER_DEVICE of memory in all (with
// its 1,604-byte state block in the pool and its share of the run's records), as measured
// (heap: 1,750 bytes at 100,000 devices by npm run bench:fleet; memory: 2,772 MB peak RSS
// for 1,000,000 devices, strategy C, seed 42), rounded up. A run larger than
// that would die part way (heap out of memory, or the machine swapping): it is refused at
// the start instead, with the number that fits.
import { totalmem } from "node:os";
import { getHeapStatistics } from "node:v8";

export const HEAP_BYTES_PER_DEVICE = 2000;
export const RSS_BYTES_PER_DEVICE = 4000;
/** What the simulator itself needs besides the devices. */
const BASE_BYTES = 256 * 2 ** 20;

/** Devices one process can hold: within its heap limit and 80% of the machine's memory. A
 * worker thread has a heap of its own but shares the memory: the CLI runs no more threads
 * than there are fleets of its size in this number. */
export function devicesThatFit(): number {
  const heap = getHeapStatistics().heap_size_limit - BASE_BYTES;
  const memory = totalmem() * 0.8 - BASE_BYTES;
  return Math.max(0, Math.floor(Math.min(heap / HEAP_BYTES_PER_DEVICE, memory / RSS_BYTES_PER_DEVICE)));
}

/** Why a fleet of more devices is refused, for the usage message. */
export function fitReason(): string {
  const heapMb = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  const memoryMb = Math.round(totalmem() / 2 ** 20);
  return (
    ` (as many as this process holds: about ${HEAP_BYTES_PER_DEVICE} bytes of its ${heapMb} MB heap` +
    ` and ${RSS_BYTES_PER_DEVICE} bytes of the machine's ${memoryMb} MB per device;` +
    ` node --max-old-space-size raises the heap)`
  );
}
