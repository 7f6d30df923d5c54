// The readings log: one JSON line per reading begun, ended or dropped, appended and
// fsynced, as a firmware would record what became of each reading (a serial or cloud log).
// The device writes its state file first and this log after it, so the log never says
// more than the state file holds. What the state file holds and the log may lack (a kill
// between the two writes) is the state file's outbox, which the next boot appends again:
// a reader takes a repeated line once.
import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync } from "node:fs";

export type LogEvent =
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
 * kill is ended first, so that it spoils only itself, not the next line.
 */
export function fileLog(path: string): ReadingsLog {
  if (existsSync(path)) {
    const text = readFileSync(path, "utf8");
    if (text !== "" && !text.endsWith("\n")) appendFileSync(path, "\n");
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

/** Every event in the log at `path` (none when it does not exist); a torn last line is skipped. */
export function readLog(path: string): LogEvent[] {
  if (!existsSync(path)) return [];
  const events: LogEvent[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line === "") continue;
    try {
      events.push(JSON.parse(line) as LogEvent);
    } catch {
      // Only the line a kill cut short can be incomplete; it is written again at boot.
    }
  }
  return events;
}
