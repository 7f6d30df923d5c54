// What became of every reading a chaos run's device took, from the records that outlive
// the kills: the device's readings log, the upstream's dedup store, and what the last
// state file still holds. A reading is taken when the state write that queued it is
// durable (the log's "taken" line comes from that write). Of those, one is delivered when
// the upstream stored it under exactly one Idempotency-Key, a duplicate when under two or
// more, endedOther when it was not stored and its operation ended with a reason the log
// recorded, dropped when the full queue dropped it, pending when the state file still
// owes it, and lost otherwise: begun but neither stored nor ended, or taken and then
// nowhere. The run passes only when taken = delivered + endedOther + dropped + pending
// (so no reading was lost or stored twice) and the records agree. A replay (the same key
// again) is not a duplicate: the upstream stored it once.
import type { StoredUpload } from "../upstream/server.js";
import { READINGS_PER_EPOCH, type LogEvent } from "../device/app/readings.js";

export interface ChaosTally {
  taken: number;
  began: number;
  delivered: number;
  duplicates: number;
  lost: number;
  endedOther: number;
  dropped: number;
  pending: number;
}

export interface TallyResult {
  tally: ChaosTally;
  /** Records that contradict each other: each is a bug of the device or of the runner. */
  problems: string[];
  /** The dropped readings by what held the queue when each was dropped (the log's `while`). */
  dropsWhile: Record<string, number>;
}

/** What the last state file still owes: readings begun (live operations) and queued. */
export interface Owed {
  pending: readonly number[];
  queued: readonly number[];
}

/** The reading number an upload's body carries, or undefined when it carries none. */
function readingOf(body: string): number | undefined {
  try {
    const r = (JSON.parse(body) as { reading?: unknown }).reading;
    return Number.isSafeInteger(r) ? (r as number) : undefined;
  } catch {
    return undefined;
  }
}

interface Fates {
  taken: Set<number>;
  operationOf: Map<number, number>;
  endOf: Map<number, string>;
  /** Each dropped reading, with what held the queue then ("" when the log does not say). */
  dropped: Map<number, string>;
}

/** The log's records by reading; contradictions into `problems`. */
function readLogEvents(log: readonly LogEvent[], problems: string[]): Fates {
  const f: Fates = { taken: new Set(), operationOf: new Map(), endOf: new Map(), dropped: new Map() };
  for (const e of log) {
    if (e.event === "taken" || e.event === "dropped") {
      if (e.event === "dropped") f.dropped.set(e.reading, e.while ?? "");
      else f.taken.add(e.reading);
      continue;
    }
    if (!f.taken.has(e.reading)) problems.push(`reading ${e.reading} ${e.event} but was never taken`);
    const known = f.operationOf.get(e.reading);
    if (known !== undefined && known !== e.operationId) {
      problems.push(`reading ${e.reading} logged under operations ${known} and ${e.operationId}`);
    }
    if (e.event === "began") f.operationOf.set(e.reading, e.operationId);
    else {
      if (known === undefined) problems.push(`reading ${e.reading} ended (${e.endReason}) but never began`);
      const before = f.endOf.get(e.reading);
      if (before !== undefined && before !== e.endReason) {
        problems.push(`reading ${e.reading} ended twice: ${before}, then ${e.endReason}`);
      }
      f.endOf.set(e.reading, e.endReason);
    }
  }
  for (const r of f.dropped.keys())
    if (!f.taken.has(r)) problems.push(`reading ${r} dropped but was never taken`);
  return f;
}

/** The keys each reading was stored under; contradictions into `problems`. */
function storedKeys(stored: readonly StoredUpload[], f: Fates, problems: string[]): Map<number, Set<string>> {
  const keysOf = new Map<number, Set<string>>();
  for (const s of stored) {
    const reading = readingOf(s.body);
    if (reading === undefined) {
      problems.push(`key ${s.key} stored a body without a reading: ${s.body.slice(0, 80)}`);
      continue;
    }
    const operation = f.operationOf.get(reading);
    if (operation === undefined)
      problems.push(`reading ${reading} stored under key ${s.key} but never began`);
    else if (String(operation) !== s.key) {
      problems.push(`reading ${reading} stored under key ${s.key}, not under its operation ${operation}`);
    }
    if (f.dropped.has(reading)) problems.push(`reading ${reading} stored, yet logged as dropped`);
    keysOf.set(reading, (keysOf.get(reading) ?? new Set()).add(s.key));
  }
  return keysOf;
}

/**
 * Numbers missing between the lowest and the highest of each epoch's readings. A boot
 * numbers its readings in order and each state write holds every one numbered before it,
 * so a number the records skip was taken (durable) and then forgotten: lost.
 */
function gaps(readings: Iterable<number>): number[] {
  const byEpoch = new Map<number, Set<number>>();
  for (const r of readings) {
    const epoch = Math.floor(r / READINGS_PER_EPOCH);
    byEpoch.set(epoch, (byEpoch.get(epoch) ?? new Set()).add(r));
  }
  const missing: number[] = [];
  for (const numbers of byEpoch.values()) {
    const sorted = [...numbers].sort((a, b) => a - b);
    for (let r = sorted[0] + 1; r < sorted[sorted.length - 1]; r++) if (!numbers.has(r)) missing.push(r);
  }
  return missing;
}

export function tally(
  log: readonly LogEvent[],
  stored: readonly StoredUpload[],
  owed: Owed = { pending: [], queued: [] },
): TallyResult {
  const problems: string[] = [];
  const f = readLogEvents(log, problems);
  const keysOf = storedKeys(stored, f, problems);
  const owes = new Set([...owed.pending, ...owed.queued]);
  const dropsWhile: Record<string, number> = {};
  const t: ChaosTally = {
    taken: 0,
    began: 0,
    delivered: 0,
    duplicates: 0,
    lost: 0,
    endedOther: 0,
    dropped: 0,
    pending: 0,
  };
  const seen = new Set([...f.taken, ...f.operationOf.keys(), ...keysOf.keys(), ...f.dropped.keys(), ...owes]);
  for (const reading of gaps(seen)) {
    problems.push(
      `reading ${reading} is missing from every record: its epoch numbered the readings around it`,
    );
    t.taken++;
    t.lost++;
  }
  for (const reading of new Set([...f.taken, ...f.operationOf.keys(), ...keysOf.keys()])) {
    t.taken++;
    if (f.operationOf.has(reading) || keysOf.has(reading)) t.began++;
    const keys = keysOf.get(reading)?.size ?? 0;
    const end = f.endOf.get(reading);
    if (keys > 1) t.duplicates++;
    else if (keys === 1) t.delivered++;
    else if (end !== undefined && end !== "SUCCEEDED") t.endedOther++;
    else if (owes.has(reading)) t.pending++;
    else if (f.dropped.has(reading) && !f.operationOf.has(reading)) {
      t.dropped++;
      const why = f.dropped.get(reading)!;
      if (why !== "") dropsWhile[why] = (dropsWhile[why] ?? 0) + 1;
    }
    // Begun and never ended, SUCCEEDED yet not stored (a lie about the upstream), or taken
    // and then nowhere: lost.
    else t.lost++;
  }
  return { tally: t, problems, dropsWhile };
}

/**
 * Why a run fails (none: it passes): a reading lost or stored twice, records that
 * contradict each other, or more readings dropped from the full queue than `allowDrops`
 * (a scenario that expects drops says how many; by default none may be).
 */
export function failures(result: TallyResult, allowDrops = 0): string[] {
  const t = result.tally;
  const why = [...result.problems];
  if (!identityHolds(t)) why.push("taken is not delivered + endedOther + dropped + pending");
  if (t.lost > 0) why.push(`${t.lost} reading(s) lost`);
  if (t.duplicates > 0) why.push(`${t.duplicates} reading(s) stored twice`);
  if (t.dropped > allowDrops) {
    const held = Object.entries(result.dropsWhile).map(([what, n]) => `${n} while ${what}`);
    const whileHeld = held.length === 0 ? "" : ` (${held.join(", ")})`;
    why.push(
      `${t.dropped} reading(s) dropped from the full queue${whileHeld}, more than --allow-drops ${allowDrops}`,
    );
  }
  return why;
}

/** Every reading taken is accounted for: delivered once, ended otherwise, dropped from a full queue, or still owed. */
export const identityHolds = (t: ChaosTally): boolean =>
  t.taken === t.delivered + t.endedOther + t.dropped + t.pending;
