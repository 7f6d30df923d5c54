// What became of every reading a chaos run began, from the two records that outlive the
// kills: the device's readings log and the upstream's dedup store. A reading is
// delivered when the upstream stored it under exactly one Idempotency-Key, a duplicate
// when under two or more (begun again under a new operation id), endedOther when it was
// not stored and its operation ended with a reason the log recorded, and lost when it
// was neither stored nor ended. A replay (the same key again) is not a duplicate: the
// upstream stored it once.
import type { StoredUpload } from "../upstream/server.js";
import type { LogEvent } from "../device/readings-log.js";

export interface ChaosTally {
  began: number;
  delivered: number;
  duplicates: number;
  lost: number;
  endedOther: number;
}

export interface TallyResult {
  tally: ChaosTally;
  /** Readings queued and dropped because the queue was full (never begun). */
  dropped: number;
  /** Records that contradict each other: each is a bug of the device or of the runner. */
  problems: string[];
}

/** The reading number an upload's body carries, or undefined when it carries none. */
function readingOf(body: string): number | undefined {
  try {
    const r = (JSON.parse(body) as { reading?: unknown }).reading;
    return Number.isInteger(r) ? (r as number) : undefined;
  } catch {
    return undefined;
  }
}

export function tally(log: readonly LogEvent[], stored: readonly StoredUpload[]): TallyResult {
  const problems: string[] = [];
  const operationOf = new Map<number, number>();
  const endOf = new Map<number, string>();
  const dropped = new Set<number>();
  for (const e of log) {
    if (e.event === "dropped") {
      dropped.add(e.reading);
      continue;
    }
    const known = operationOf.get(e.reading);
    if (known !== undefined && known !== e.operationId) {
      problems.push(`reading ${e.reading} logged under operations ${known} and ${e.operationId}`);
    }
    if (e.event === "began") operationOf.set(e.reading, e.operationId);
    else {
      if (known === undefined) problems.push(`reading ${e.reading} ended (${e.endReason}) but never began`);
      const before = endOf.get(e.reading);
      if (before !== undefined && before !== e.endReason) {
        problems.push(`reading ${e.reading} ended twice: ${before}, then ${e.endReason}`);
      }
      endOf.set(e.reading, e.endReason);
    }
  }

  const keysOf = new Map<number, Set<string>>();
  for (const s of stored) {
    const reading = readingOf(s.body);
    if (reading === undefined) {
      problems.push(`key ${s.key} stored a body without a reading: ${s.body.slice(0, 80)}`);
      continue;
    }
    const operation = operationOf.get(reading);
    if (operation === undefined)
      problems.push(`reading ${reading} stored under key ${s.key} but never began`);
    else if (String(operation) !== s.key) {
      problems.push(`reading ${reading} stored under key ${s.key}, not under its operation ${operation}`);
    }
    if (dropped.has(reading)) problems.push(`reading ${reading} stored, yet logged as dropped`);
    keysOf.set(reading, (keysOf.get(reading) ?? new Set()).add(s.key));
  }

  const t: ChaosTally = { began: 0, delivered: 0, duplicates: 0, lost: 0, endedOther: 0 };
  for (const reading of new Set([...operationOf.keys(), ...keysOf.keys()])) {
    t.began++;
    const keys = keysOf.get(reading)?.size ?? 0;
    const end = endOf.get(reading);
    if (keys > 1) t.duplicates++;
    else if (keys === 1) t.delivered++;
    else if (end === undefined || end === "SUCCEEDED") {
      // SUCCEEDED yet not stored would be a lie about the upstream: counted lost.
      t.lost++;
    } else t.endedOther++;
  }
  return { tally: t, dropped: dropped.size, problems };
}
