// The sensor readings the device uploads, and the bounded queue a reading waits in when
// all 16 slots of the module are taken. A queued reading begins when a slot frees; only a
// full queue drops a reading, the oldest, and counts it. The queue lives in the state
// file with everything else, so a restart loses no queued reading either. The readings log
// below records what became of each.
import {
  appendFileSync,
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  truncateSync,
} from "node:fs";
import {
  Error as AbiError,
  Limit,
  State,
  endReasonName,
  errorName,
  outcomeName,
  tickAfter,
  tickReached,
  ticksUntil,
  type AttemptAnswer,
  type LoopEvent,
} from "tickretry";
import type { EventLog } from "../events.js";
import { keepAliveAgents, startAttempt, type Agents, type AttemptResult } from "../link/http-attempt.js";
import { publishReading, type MqttTransport } from "../link/mqtt-transport.js";
import { UPLOAD_POLICY } from "../policies.js";
import type { Running } from "../running.js";
import { READINGS } from "../generated/app-config.js";

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

/** Readings that may wait for a slot (boards/app/config.json: two tables' worth). */
export const QUEUE_LIMIT = READINGS.queueLimit;

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
  /** The queue was full: the reading never began; `while` says what held the queue then. */
  | { event: "dropped"; reading: number; while?: string };

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
      // Owner only: what the device did is its owner's record (a log made before this rule is tightened too).
      const fd = openSync(path, "a", 0o600);
      try {
        if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
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

/** What readings and uploads tell the kept state (app/kept.ts, Kept): each change goes into the next write. */
export interface Recorder {
  /** A change to the readings: into the next state-file write, then into the log. */
  record(event: LogEvent): void;
  /** An operation ended: counted over the device's life. */
  countEnd(): void;
}

/** What the state file keeps of the readings. */
export interface KeptReadings {
  queue: Reading[];
  /** The reading epoch of the boot that wrote it, and the next reading's place in it. */
  epoch: number;
  nextReading: number;
  dropped: number;
}

/**
 * The readings taken and waiting: the periodic timer, the numbering by epoch and the
 * bounded queue. A new epoch each boot, stored by the first pass before any reading is
 * numbered in it: readings a kill lost in memory took numbers no later boot can take again.
 */
/** What taking readings needs of the page's requests (requests.ts, Requests): the uploads
 * asked for, nothing of the status the requests also carry. */
export interface UploadAsks {
  upload(): void;
  takeUpload(): boolean;
}

export class Readings {
  queue!: ReadingQueue;
  /** Readings dropped over the device's life because the queue was full. */
  dropped = 0;
  /** This boot's reading epoch and the next number within it (readingId). */
  epoch = 0;
  nextReading = 0;
  /** The epoch is on flash: only then may a reading take a number of it. */
  private epochStored = false;
  private nextUploadAt: number | undefined;

  constructor(
    /** Take a reading this often, ms; 0: only when asked. */
    readonly everyMs: number,
    private readonly queueLimit: number,
    private readonly recorder: Recorder,
  ) {}

  /**
   * A boot takes a new epoch, stored by its first pass; a deep sleep's timed wake goes on in
   * the epoch it slept in, as the board does (boards/app/kept.h): the state saved before the
   * sleep holds the next number, so none is used twice, and a wake writes nothing new.
   */
  boot(stored: KeptReadings | undefined, timedWake = false): void {
    this.queue = new ReadingQueue(this.queueLimit, stored?.queue);
    const goOn = timedWake && stored !== undefined;
    this.epoch = goOn ? stored.epoch : (stored?.epoch ?? 0) + 1;
    this.nextReading = goOn ? stored.nextReading : 0;
    this.epochStored = goOn;
    this.dropped = stored?.dropped ?? 0;
    this.nextUploadAt = undefined;
  }

  /** A state write succeeded: this epoch is on flash. */
  written(): void {
    this.epochStored = true;
  }

  /** Whether this boot's epoch is on flash yet. */
  get epochWritten(): boolean {
    return this.epochStored;
  }

  /** After a deep sleep: the next reading `inMs` from `now`, as it was due before the sleep (0: at once). */
  dueAfter(now: number, inMs: number): void {
    this.nextUploadAt = inMs > 0 ? tickAfter(now, inMs) : undefined;
  }

  /** Ticks from `now` until the periodic reading is due, or undefined before the first pass took one. */
  dueIn(now: number): number | undefined {
    return this.nextUploadAt === undefined ? undefined : Math.max(0, ticksUntil(now, this.nextUploadAt));
  }

  /**
   * Takes the readings due and asked for. A free slot takes the oldest queued reading
   * (`beginQueued`) before a new one joins the queue, so a reading is dropped only when
   * every slot is taken and the queue is full; `holding` says why no slot took it, for
   * the log (a drop the chaos run counts by its reason).
   */
  take(now: number, requests: UploadAsks, beginQueued: () => void, holding: () => string): void {
    const at = this.nextUploadAt;
    if (this.everyMs > 0 && (at === undefined || tickReached(now, at))) {
      requests.upload();
      // On the period's grid, as the board's (readings.c): a pass a few ms late does not
      // move the next reading, and a gap longer than the period takes one reading, not one
      // per period missed.
      const next = at === undefined ? now : tickAfter(at, this.everyMs);
      this.nextUploadAt = tickReached(now, next) ? tickAfter(now, this.everyMs) : next;
    }
    while (this.epochStored && requests.takeUpload()) {
      beginQueued();
      const reading = takeReading(readingId(this.epoch, this.nextReading++));
      if (this.nextReading === READINGS_PER_EPOCH) this.nextEpoch();
      this.recorder.record({ event: "taken", reading: reading.id });
      const dropped = this.queue.push(reading);
      if (dropped !== undefined) {
        this.dropped++;
        this.recorder.record({ event: "dropped", reading: dropped.id, while: holding() });
      }
    }
    beginQueued();
  }

  kept(): KeptReadings {
    return {
      epoch: this.epoch,
      nextReading: this.nextReading,
      queue: this.queue.toArray(),
      dropped: this.dropped,
    };
  }

  /** This epoch's numbers are used up: the next ones wait for the next epoch to be stored. */
  private nextEpoch(): void {
    this.epoch++;
    this.nextReading = 0;
    this.epochStored = false;
  }
}

interface Flight {
  attempt: number;
  /** The HTTP request or the MQTT publish; destroy() gives it up. */
  req: { destroy(): void };
  result?: AttemptResult;
}

/** A reading begun under an operation, with what the host holds of it. */
export interface Tracked {
  handle: number;
  operationId: number;
  reading: Reading;
  begunMs: number;
  /** The latest attempt's answer, for people. */
  detail: string;
  flight?: Flight;
}

export interface EndedOperation {
  /** Its end event's seq on the page's timeline. */
  seq: number;
  operationId: number;
  reading: number;
  endReason: number;
  attempts: number;
  lastOutcome: number;
  detail: string;
  /** Wall time from begin (or from the boot that restored it) to end, ms. */
  tookMs: number;
}

/** Host-side counts the module does not keep (this boot's). */
export interface HostCounts {
  requestsStarted: number;
  /** Requests dropped because the module no longer counts their attempt. */
  requestsAbandoned: number;
}

/** An upstream standing in for HTTP: starts one attempt and calls `done` with its result; destroy() gives it up. */
export type UploadLink = (
  a: { operationId: number; attempt: number; reading: Reading; body: string },
  done: (r: AttemptResult) => void,
) => { destroy(): void };

/** What an upload needs from outside its room: where it goes, and the faults to inject. */
export interface UploadLinks {
  /** Upload over MQTT through this broker connection instead of HTTP. */
  mqtt?: MqttTransport;
  /** Or through this stand-in for HTTP. */
  link?: UploadLink;
  /** The upstream URL of the settings in force. */
  upstreamUrl: () => string;
  /** The device's RTC, ms since the epoch (an HTTP-date Retry-After counts from it). */
  rtcMs: () => number;
  /** An answer arrived and is not reported yet (the chaos run's crash point). */
  answered: () => void;
  onEnd?: (op: EndedOperation) => void;
}

/** Ended operations the page lists. */
const RECENT = 20;

/**
 * The uploads: each reading begun is one operation of the upload policy, whose attempts
 * go out as requests (or publishes) and whose answers come back through the loop. A
 * request whose attempt the module no longer counts is given up in the same pass, so an
 * ended operation is released at once (the late-answer rule, docs/ABI.md).
 */
export class Uploads {
  readonly ops = new Map<number, Tracked>();
  readonly recent: EndedOperation[] = [];
  host: HostCounts = { requestsStarted: 0, requestsAbandoned: 0 };
  private agents!: Agents;

  constructor(
    private readonly running: Running,
    private readonly events: EventLog,
    private readonly recorder: Recorder,
    private readonly links: UploadLinks,
  ) {}

  /** A boot: this boot's client, and the readings the stored state had begun. */
  boot(pending: readonly Omit<Tracked, "begunMs" | "detail">[], begunMs: number, detail: string): void {
    this.host = { requestsStarted: 0, requestsAbandoned: 0 };
    this.agents = keepAliveAgents();
    this.ops.clear();
    for (const p of pending) this.ops.set(p.handle, { ...p, begunMs, detail });
  }

  /** Every request dies with the instance. */
  powerDown(): void {
    for (const op of this.ops.values()) op.flight?.req.destroy();
    this.ops.clear();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Begins queued readings, oldest first, while a slot is free. */
  beginQueued(queue: ReadingQueue, now: number): void {
    const { api, loop, passMs } = this.running;
    for (let r = queue.peek(); r !== undefined && this.ops.size < Limit.OPERATIONS; r = queue.peek()) {
      const h = loop.begin(UPLOAD_POLICY, now);
      if (h === AbiError.TABLE_FULL) return;
      if (h < 0) throw new Error(`begin refused the upload policy: ${errorName(h)}`);
      queue.shift();
      const operationId = api.operationId(h);
      this.ops.set(h, { handle: h, operationId, reading: r, begunMs: passMs, detail: "" });
      this.events.add(now, "begin", operationId, 0);
      this.recorder.record({ event: "began", reading: r.id, operationId });
    }
  }

  /** The HAL's collect: the first answer that has arrived, in the order operations began. */
  collect(): AttemptAnswer | undefined {
    for (const op of this.ops.values()) {
      const f = op.flight;
      if (f?.result === undefined) continue;
      this.links.answered();
      op.flight = undefined;
      op.detail = f.result.detail;
      const t = this.running.tick.at(this.running.passMs);
      this.events.add(t, "answer", op.operationId, f.attempt, outcomeName(f.result.outcome));
      return {
        handle: op.handle,
        attempt: f.attempt,
        outcome: f.result.outcome,
        retryAfter: f.result.retryAfter,
      };
    }
    return undefined;
  }

  /** The HAL's startAttempt for an upload: its request (or publish) goes out now. */
  start(h: number, attempt: number, now: number): void {
    const op = this.ops.get(h)!;
    const { mqtt, link } = this.links;
    this.events.add(now, "start", op.operationId, attempt);
    const done = (result: AttemptResult) => (flight.result = result);
    const { operationId, reading } = op;
    const flight: Flight = {
      attempt,
      req: mqtt
        ? publishReading(mqtt, op.operationId, op.reading, done)
        : link
          ? link({ operationId, attempt, reading, body: uploadBody(reading) }, done)
          : startAttempt(
              {
                url: this.links.upstreamUrl(),
                operationId: op.operationId,
                attempt,
                body: uploadBody(op.reading),
                agents: this.agents,
                wallMs: this.links.rtcMs,
              },
              done,
            ),
    };
    op.flight = flight;
    this.host.requestsStarted++;
  }

  onEvent(e: LoopEvent): void {
    // STALE_REPORT (the answer came after its attempt deadline) is counted by the module;
    // any other refusal is a bug of this host.
    if (e.kind === "report" && e.result < 0 && e.result !== AbiError.STALE_REPORT)
      throw new Error(`report refused: ${errorName(e.result)}`);
    if (e.kind === "end") this.retire(e.handle, e.t);
  }

  /**
   * A request whose attempt the module no longer counts (timed out, or its operation
   * ended) will never be reported: free its socket. A timed-out attempt whose retry poll
   * started in the same pass is dropped here too, before the retry goes out.
   */
  dropStale(now: number): void {
    const api = this.running.api;
    for (const op of this.ops.values()) {
      const f = op.flight;
      if (f === undefined) continue;
      if (api.state(op.handle) === State.IN_FLIGHT && api.attempt(op.handle) === f.attempt) continue;
      this.abandon(op, f, now);
    }
  }

  /** Ends every live operation CANCELLED and drops its request (the loop's next pass sees the ends). */
  cancelAll(now: number): void {
    const { api, loop } = this.running;
    for (const op of this.ops.values()) {
      if (api.state(op.handle) === State.DONE) continue;
      api.cancel(op.handle, now);
      op.detail = "cancelled: the device stopped";
      if (op.flight === undefined) continue;
      op.flight.req.destroy();
      op.flight = undefined;
      loop.abandon(op.handle);
    }
  }

  /** An operation ended() handed out; an attempt of it still out is abandoned first. */
  private retire(h: number, now: number): void {
    const op = this.ops.get(h);
    if (op === undefined)
      throw new Error(`ended() handed out ${h} (${errorName(h)}), which this loop does not hold`);
    if (op.flight !== undefined) this.abandon(op, op.flight, now);
    const api = this.running.api;
    const endReason = api.endReason(h);
    const attempts = api.attempt(h);
    const seq = this.events.add(now, "end", op.operationId, attempts, "NONE", endReasonName(endReason));
    const ended: EndedOperation = {
      seq,
      operationId: op.operationId,
      reading: op.reading.id,
      endReason,
      attempts,
      lastOutcome: api.lastOutcome(h),
      detail: op.detail,
      tookMs: this.running.passMs - op.begunMs,
    };
    this.recent.unshift(ended);
    if (this.recent.length > RECENT) this.recent.pop();
    this.links.onEnd?.(ended);
    this.ops.delete(h);
    this.recorder.countEnd();
    this.recorder.record({
      event: "ended",
      reading: ended.reading,
      operationId: ended.operationId,
      endReason: endReasonName(ended.endReason),
      attempts: ended.attempts,
    });
  }

  private abandon(op: Tracked, f: Flight, now: number): void {
    op.flight = undefined;
    op.detail = "no answer within the attempt timeout";
    f.req.destroy();
    this.running.loop.abandon(op.handle);
    this.host.requestsAbandoned++;
    this.events.add(now, "timeout", op.operationId, f.attempt);
  }
}
