// The sensor readings the device uploads, and the bounded queue a reading waits in when
// all 16 slots of the module are taken. A queued reading begins when a slot frees; only a
// full queue drops a reading, the oldest, and counts it. The queue lives in the state
// file with everything else, so a restart loses no queued reading either.

/** Readings one epoch numbers; then the next epoch begins. */
export const READINGS_PER_EPOCH = 2 ** 21;

/**
 * A reading's number: its epoch (one per boot, stored before the boot numbers anything)
 * times READINGS_PER_EPOCH plus its place in the epoch. A reading a kill lost before the
 * state write took a number of an epoch no later boot uses again, so no number is ever
 * reused; below 2^53 while epochs stay below 2^32.
 */
export const readingId = (epoch: number, seq: number): number => epoch * READINGS_PER_EPOCH + seq;

/** One sensor reading: numbered by the device, uploaded as its body under one operation id. */
export interface Reading {
  /** Unique per device (readingId), kept in the state file. */
  id: number;
  celsius: number;
}

/** Readings that may wait for a slot (two tables' worth). */
export const QUEUE_LIMIT = 32;

/** A reading's upload body, the same on every attempt. */
export function uploadBody(r: Reading): string {
  return JSON.stringify({ reading: r.id, celsius: r.celsius });
}

/** The reading numbered `id` (a made-up temperature that moves a little). */
export function takeReading(id: number): Reading {
  return { id, celsius: 20 + (id % 50) / 10 };
}

/** Readings waiting for a slot, oldest first. */
export class ReadingQueue {
  constructor(
    readonly limit = QUEUE_LIMIT,
    private readonly items: Reading[] = [],
  ) {
    if (items.length > limit) throw new Error(`${items.length} queued readings, more than ${limit}`);
  }

  get length(): number {
    return this.items.length;
  }

  /** Adds `r`; returns the oldest reading when the queue was full and had to drop it. */
  push(r: Reading): Reading | undefined {
    this.items.push(r);
    return this.items.length > this.limit ? this.items.shift() : undefined;
  }

  peek(): Reading | undefined {
    return this.items[0];
  }

  shift(): Reading | undefined {
    return this.items.shift();
  }

  toArray(): Reading[] {
    return [...this.items];
  }
}
