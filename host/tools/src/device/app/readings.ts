// The sensor readings the device uploads, and the bounded queue a reading waits in when
// all 16 slots of the module are taken. A queued reading begins when a slot frees; only a
// full queue drops a reading, the oldest, and counts it. The queue lives in the state
// file with everything else, so a restart loses no queued reading either. The readings log
// below records what became of each.
import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  truncateSync,
} from "node:fs";

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

// The readings log: one JSON line per reading begun, ended or dropped, appended and
// fsynced, as a firmware would record what became of each reading (a serial or cloud log).
// The device writes its state file first and this log after it, so the log never says
// more than the state file holds. What the state file holds and the log may lack (a kill
// between the two writes) is the state file's outbox, which the next boot appends again:
// a reader takes a repeated line once.
export type LogEvent =
  /** The reading was taken: it is in the state file's queue (or was dropped in the same write). */
  | { event: "taken"; reading: number }
  /** The reading's begin is durable: it is in the state file under this operation id. */
  | { event: "began"; reading: number; operationId: number }
  /** Its operation ended (and was released) with this end reason. */
  | { event: "ended"; reading: number; operationId: number; endReason: string; attempts: number }
  /** The queue was full: the reading never began. */
  | { event: "dropped"; reading: number };

export interface ReadingsLog {
  append(events: readonly LogEvent[]): void;
}

/**
 * A log appended to `path`; each batch is fsynced before append returns. A line torn by a
 * kill is cut off first (the state file's outbox writes it again at boot), so that every
 * complete line of the log parses.
 */
export function fileLog(path: string): ReadingsLog {
  if (existsSync(path)) {
    const text = readFileSync(path);
    if (text.length > 0 && text[text.length - 1] !== 0x0a) truncateSync(path, text.lastIndexOf(0x0a) + 1);
  }
  return {
    append(events) {
      if (events.length === 0) return;
      const fd = openSync(path, "a");
      try {
        appendFileSync(fd, events.map((e) => JSON.stringify(e) + "\n").join(""));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
  };
}

/**
 * Every event in the log at `path` (none when it does not exist). Only a last line without
 * its newline (a kill mid-append) may be incomplete and is skipped; any other line that does
 * not parse is an error, named by its line number.
 */
export function readLog(path: string): LogEvent[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, "utf8").split("\n");
  const torn = lines.pop(); // "" when the log ends with a newline
  const events: LogEvent[] = [];
  lines.forEach((line, i) => {
    try {
      events.push(JSON.parse(line) as LogEvent);
    } catch {
      throw new Error(`readings log ${path}: line ${i + 1} is not a record: ${line.slice(0, 80)}`);
    }
  });
  if (torn !== undefined && torn !== "") {
    try {
      events.push(JSON.parse(torn) as LogEvent);
    } catch {
      // Cut short by a kill; fileLog removes it and the state file's outbox writes it again.
    }
  }
  return events;
}
