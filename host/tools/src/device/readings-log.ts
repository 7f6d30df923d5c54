// The readings log: one JSON line per reading begun, ended or dropped, appended and
// fsynced, as a firmware would record what became of each reading (a serial or cloud log).
// The device writes its state file first and this log after it, so the log never says
// more than the state file holds. What the state file holds and the log may lack (a kill
// between the two writes) is the state file's outbox, which the next boot appends again:
// a reader takes a repeated line once.
import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  truncateSync,
} from "node:fs";

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
