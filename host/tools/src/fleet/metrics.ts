// What a run records (sends and answers per 100 ms, every operation's start, latency and
// end) and the row of figures computed from it, for one seed or the mean over several.
import { EndReason } from "tickretry";
import type { Arrivals, FleetSettings } from "./settings.js";

/** Bucket width of the 100 ms series; the 1 s figures add ten of these. */
export const BUCKET_MS = 100;

/** Counts per fixed 100 ms bucket, growing as later buckets are hit. */
class Buckets {
  counts = new Int32Array(512);

  add(time: number, amount = 1): void {
    const b = Math.floor(time / BUCKET_MS);
    if (b >= this.counts.length) {
      const counts = new Int32Array(Math.max(b + 1, this.counts.length * 2));
      counts.set(this.counts);
      this.counts = counts;
    }
    this.counts[b] += amount;
  }

  at(b: number): number {
    return b < this.counts.length ? this.counts[b] : 0;
  }
}

/** Values appended one by one into a typed array that doubles when full: a million
 * devices end some 15 million operations, 9 bytes each here against 24 in number arrays. */
class Column<T extends Int32Array | Uint8Array> {
  length = 0;
  constructor(private values: T) {}

  push(v: number): void {
    if (this.length === this.values.length) {
      const grown = new (this.values.constructor as new (n: number) => T)(this.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = v;
  }

  /** The values pushed so far (a view: it does not follow later pushes). */
  view(): T {
    return this.values.subarray(0, this.length) as T;
  }
}

export class RunRecord {
  firstSends = new Buckets();
  retrySends = new Buckets();
  answersOk = new Buckets();
  answersFailed = new Buckets();
  /** Sum over the successful answers of their time in the dependency (send to answer). */
  answersOkMs = new Buckets();
  private readonly starts = new Column(new Int32Array(1024));
  private readonly latencies = new Column(new Int32Array(1024));
  private readonly reasons = new Column(new Uint8Array(1024));
  /** Answers the module refused because their attempt was no longer current. */
  staleResponses = 0;
  /** Begins the module refused with TABLE_FULL (open arrivals: uploads lost). */
  tableFull = 0;
  /** With a power cut: when power came back, the uploads pending at the cut (as the
   * devices had stored them) and how many of those ended SUCCEEDED in the end. */
  bootAt = -1;
  pendingAtCut = 0;
  pendingSucceeded = 0;
  /** Sums of the modules' counters at the end of the run. */
  retriesDenied = 0;
  attemptsStarted = 0;
  attemptTimeouts = 0;
  /** Events that reached a device's memory (wakes, answers): what a large fleet pays a
   * cache miss for (bench:fleet's memory floor). */
  deviceEvents = 0;

  /** A device sent a request (attempt 1 or a retry). */
  send(time: number, retry: boolean): void {
    (retry ? this.retrySends : this.firstSends).add(time);
  }

  /** The dependency answered a request sent at `sentAt`. */
  answer(time: number, ok: boolean, sentAt: number): void {
    if (!ok) return this.answersFailed.add(time);
    this.answersOk.add(time);
    this.answersOkMs.add(time, time - sentAt);
  }

  /** Every operation's start (virtual ms), latency (ms) and end reason, in the order they ended. */
  get opStart(): Int32Array {
    return this.starts.view();
  }
  get opLatency(): Int32Array {
    return this.latencies.view();
  }
  get opReason(): Uint8Array {
    return this.reasons.view();
  }

  /** An operation ended; `pending`: its upload was pending at a power cut. */
  operation(start: number, end: number, reason: number, pending = false): void {
    this.starts.push(start);
    this.latencies.push(end - start);
    this.reasons.push(reason);
    if (pending && reason === EndReason.SUCCEEDED) this.pendingSucceeded++;
  }
}

/** One strategy's figures; the keys --json promises. */
export interface Row {
  strategy: string;
  /** The device model that ran (FleetSettings.arrivals). */
  arrivals: Arrivals;
  /** Of the operations begun in the affected window, the share that succeeded (0..1). */
  successRate: number;
  /** First attempts plus retries sent. */
  totalRequests: number;
  retriesSent: number;
  /** The modules' RETRIES_DENIED counters, summed. */
  retriesDenied: number;
  /** Most requests sent in one fixed 1 s bucket. */
  peak1s: number;
  /** Most requests sent in one fixed 100 ms bucket. */
  peak100ms: number;
  /** Latency from first send to final outcome over all operations (nearest rank). */
  p95Ms: number;
  p99Ms: number;
  /** See FleetSettings.recovery. */
  recoveryMs: number;
  staleResponses: number;
  /** Begins refused with TABLE_FULL: uploads lost because all 16 slots were held. */
  tableFull: number;
  operations: number;
  /** With a power cut only: most requests sent in one 100 ms bucket from the moment power
   * came back on. */
  peak100msAfterBoot?: number;
  /** With a power cut only: uploads pending when power went (as the devices had stored
   * them), and the share of those that succeeded in the end. */
  pendingAtCut?: number;
  pendingSuccessRate?: number;
}

export type NumericKey = Exclude<keyof Row, "strategy" | "arrivals">;
const NUMERIC_KEYS: NumericKey[] = [
  "successRate",
  "totalRequests",
  "retriesSent",
  "retriesDenied",
  "peak1s",
  "peak100ms",
  "p95Ms",
  "p99Ms",
  "recoveryMs",
  "staleResponses",
  "tableFull",
  "operations",
  "peak100msAfterBoot",
  "pendingAtCut",
  "pendingSuccessRate",
];

/** Requests sent in 100 ms bucket b. */
export function sendsAt(r: RunRecord, b: number): number {
  return r.firstSends.at(b) + r.retrySends.at(b);
}

function percentile(sorted: Int32Array, p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

/** The recovery time as FleetSettings.recovery defines it. */
export function recoveryMs(r: RunRecord, s: FleetSettings): number {
  const from = Math.floor(s.recovery.fromMs / BUCKET_MS);
  const end = Math.ceil(s.durationMs / BUCKET_MS);
  let b = end;
  while (b > from) {
    const ok = r.answersOk.at(b - 1);
    const total = ok + r.answersFailed.at(b - 1);
    if (ok < s.recovery.threshold * total) break;
    if (r.answersOkMs.at(b - 1) > s.recovery.maxLatencyMs * ok) break;
    b--;
  }
  // A run that ends before the resume has nothing to recover from.
  return Math.max(0, b * BUCKET_MS - s.recovery.fromMs);
}

export function summarize(strategy: string, r: RunRecord, s: FleetSettings): Row {
  let affected = 0;
  let succeeded = 0;
  const [starts, reasons] = [r.opStart, r.opReason];
  for (let i = 0; i < starts.length; i++) {
    if (starts[i] >= s.affected.fromMs && starts[i] < s.affected.toMs) {
      affected++;
      if (reasons[i] === EndReason.SUCCEEDED) succeeded++;
    }
  }
  let first = 0;
  let retries = 0;
  let peak100ms = 0;
  let peak1s = 0;
  const buckets = Math.max(r.firstSends.counts.length, r.retrySends.counts.length);
  const perSecond = 1000 / BUCKET_MS;
  for (let b = 0; b < buckets; b += perSecond) {
    let second = 0;
    for (let i = b; i < b + perSecond; i++) {
      const n = sendsAt(r, i);
      first += r.firstSends.at(i);
      retries += r.retrySends.at(i);
      second += n;
      peak100ms = Math.max(peak100ms, n);
    }
    peak1s = Math.max(peak1s, second);
  }
  const latency = r.opLatency.slice().sort();
  let peak100msAfterBoot = 0;
  for (let b = Math.floor(r.bootAt / BUCKET_MS); r.bootAt >= 0 && b < buckets; b++) {
    peak100msAfterBoot = Math.max(peak100msAfterBoot, sendsAt(r, b));
  }
  const powerCut = s.powerCut && {
    peak100msAfterBoot,
    pendingAtCut: r.pendingAtCut,
    pendingSuccessRate: r.pendingAtCut === 0 ? 1 : r.pendingSucceeded / r.pendingAtCut,
  };
  return {
    strategy,
    arrivals: s.arrivals,
    // A run that ends before the affected window has no failure to count.
    successRate: affected === 0 ? 1 : succeeded / affected,
    totalRequests: first + retries,
    retriesSent: retries,
    retriesDenied: r.retriesDenied,
    peak1s,
    peak100ms,
    p95Ms: percentile(latency, 0.95),
    p99Ms: percentile(latency, 0.99),
    recoveryMs: recoveryMs(r, s),
    staleResponses: r.staleResponses,
    tableFull: r.tableFull,
    operations: starts.length,
    ...powerCut,
  };
}

/** Rows of one strategy over several seeds: the means, with min and max of every figure. */
export interface AggregateRow extends Row {
  seeds: number;
  min: Record<NumericKey, number>;
  max: Record<NumericKey, number>;
}

export function aggregate(rows: Row[]): AggregateRow {
  const mean = { ...rows[0] } as Row;
  const min = {} as Record<NumericKey, number>;
  const max = {} as Record<NumericKey, number>;
  // The power cut's figures only where a power cut ran.
  for (const k of NUMERIC_KEYS.filter((k) => k in rows[0])) {
    const values = rows.map((r) => r[k] as number);
    mean[k] = values.reduce((a, b) => a + b, 0) / values.length;
    min[k] = Math.min(...values);
    max[k] = Math.max(...values);
  }
  return { ...mean, seeds: rows.length, min, max };
}
