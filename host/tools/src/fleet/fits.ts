// How many devices one process can simulate: each device of a scenario holds about
// `heapBytes` of V8 heap and about `rssBytes` of memory in all, as measured and rounded up.
// A run larger than that would die part way (heap out of memory, or the machine swapping):
// it is refused at the start instead, with the number that fits.
import { totalmem } from "node:os";
import { getHeapStatistics } from "node:v8";

/** What one device of a scenario holds. */
export interface DeviceCost {
  heapBytes: number;
  rssBytes: number;
}

/** The outage's device: its row, its loop's record, and its 1,600-byte state block and
 * used-slot count in the pool, all outside the heap (6 bytes of live heap a device at 100,000 devices), and with
 * its share of the run's records 2,657 MB peak RSS for 1,000,000 devices, strategy C, seed
 * 42 (npm run bench:fleet). */
export const OUTAGE_DEVICE: DeviceCost = { heapBytes: 250, rssBytes: 4000 };

/** The same device when it persists for a power cut: what it stored (image, uploads, loop
 * slots) is on the heap, 1,081 bytes live a device at 100,000 devices with --power-cut
 * 9000:3000, and 798 MB peak RSS for the run. */
export const PERSISTING_DEVICE: DeviceCost = { heapBytes: 2000, rssBytes: 8000 };

/** The broker restart's device: rows of typed arrays and, for a session, its Loop on the
 * heap (137 bytes at 1,000,000 devices), and 2,095 MB peak RSS for 1,000,000 devices, every
 * strategy, seed 42 (10,031 MB for 4,988,191, the two session strategies for 31 s). Its
 * share of memory is taken as two state blocks, room for a run's pool that is still held
 * while the next run's is made. */
export const BROKER_DEVICE: DeviceCost = { heapBytes: 250, rssBytes: 4000 };

/** What the simulator itself needs besides the devices. */
const BASE_BYTES = 256 * 2 ** 20;

/** Devices one process can hold: within its heap limit and 80% of the machine's memory. A
 * worker thread has a heap of its own but shares the memory: the CLI runs no more threads
 * than there are fleets of its size in this number. */
export function devicesThatFit(cost = OUTAGE_DEVICE): number {
  const heap = getHeapStatistics().heap_size_limit - BASE_BYTES;
  const memory = totalmem() * 0.8 - BASE_BYTES;
  return Math.max(0, Math.floor(Math.min(heap / cost.heapBytes, memory / cost.rssBytes)));
}

/** Why a fleet of more devices is refused, for the usage message. */
export function fitReason(cost = OUTAGE_DEVICE): string {
  const heapMb = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  const memoryMb = Math.round(totalmem() / 2 ** 20);
  return (
    ` (as many as this process holds: about ${cost.heapBytes} bytes of its ${heapMb} MB heap` +
    ` and ${cost.rssBytes} bytes of the machine's ${memoryMb} MB per device;` +
    ` node --max-old-space-size raises the heap)`
  );
}
