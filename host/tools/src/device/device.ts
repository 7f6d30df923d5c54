// The simulated device: the firmware's main loop (host/library/src/loop.ts, the twin of
// device_loop.c) with a HAL over real HTTP and a state file. Each pass reads the device's
// clock once (the clock comes from outside: wall time for npm start and the chaos run,
// virtual time in the tests), reports the answers that arrived since the last pass,
// retires the operations ended() hands out, takes the periodic reading (it waits in a
// bounded queue until a slot is free), begins queued readings, polls, closes requests the
// module no longer counts, writes the state file when anything durable changed, and only
// then sends the attempts polled: a reading's begin and its first attempt are on flash
// before the request leaves, so a kill at any moment can neither lose a begun reading nor
// send one under two operation ids. Everything else (the setup page) runs in the event
// loop between passes, as it would between loop() calls.
import { readFileSync } from "node:fs";
import {
  Error as AbiError,
  Limit,
  Loop,
  NextDue,
  OpFlag,
  Result,
  State,
  restoreImage,
  saveImage,
  endReasonName,
  errorName,
  outcomeName,
  type PolicyFields,
  instantiate,
  WASM_PATH,
  type TickRetryApi,
  tickAfter,
  tickReached,
  ticksUntil,
  emptySlots,
  type AttemptAnswer,
  type LoopEvent,
  type LoopHal,
} from "tickretry";
import { bootModule } from "./boot.js";
import { BrokerSession } from "./app/broker.js";
import { crasher, type CrashAt, type CrashPoint } from "./app/kept.js";
import { EventLog } from "./app/status.js";
import { keepAliveAgents, startAttempt, type Agents, type AttemptResult } from "./link/http-attempt.js";
import { LoopStats } from "./loop-stats.js";
import { publishReading, useBrokerSettings, type MqttTransport } from "./link/mqtt-transport.js";
import { UPLOAD, UPLOAD_POLICY, mqttUpload, type BudgetName } from "./policies.js";
import {
  QUEUE_LIMIT,
  READINGS_PER_EPOCH,
  ReadingQueue,
  readingId,
  takeReading,
  uploadBody,
  type Reading,
} from "./app/readings.js";
import type { LogEvent, ReadingsLog } from "./app/readings.js";
import { defaultSettings, type Settings } from "./app/settings.js";
import { memoryStore, type DeviceState, type StateStore } from "./app/kept.js";
import { wallClock, type DeviceClock } from "./clock.js";
import { DeviceTick } from "./tick.js";

/** The longest main-loop stall the page or the command line may ask for, ms. */
export const MAX_STALL_MS = 60_000;

/** The longest deep sleep the page may ask for, s. */
export const MAX_SLEEP_S = 3600;

export interface DeviceOptions {
  upstreamUrl: string;
  /** Seeds a new module (a board uses its hardware RNG and MAC); random by default. */
  seed?: bigint;
  /** First tick of every boot (default DEFAULT_TICK_START, 20 s before the wrap). */
  tickStart?: number;
  /** The upload policy and budget of a new scheduler; a restored one keeps its own. */
  policy?: PolicyFields;
  budget?: BudgetName;
  /** Take a sensor reading this often, ms; 0: only when asked (default 3000). */
  uploadEveryMs?: number;
  /** Longest nap between passes when nothing is due, ms (default 5, like delay(5)). */
  idleSleepMs?: number;
  /** Called when an operation ends, before its slot is released. */
  onEnd?: (op: EndedOperation) => void;
  /** Where the state lives across reboots (default: memory, which a process restart loses). */
  store?: StateStore;
  /** Where each reading's fate is recorded (default: nowhere). */
  log?: ReadingsLog;
  /** Readings that may wait for a slot (default QUEUE_LIMIT). */
  queueLimit?: number;
  /** Fault injection: SIGKILL this process at a point of the pass (the chaos run's). */
  crashAt?: CrashAt;
  /** Where time comes from (default: the wall clock). */
  clock?: DeviceClock;
  /** Upload over MQTT through this broker connection instead of HTTP (link/mqtt-transport.ts). */
  mqtt?: MqttTransport;
}

interface Flight {
  attempt: number;
  /** The HTTP request or the MQTT publish; destroy() gives it up. */
  req: { destroy(): void };
  result?: AttemptResult;
}

interface Tracked {
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

export type BootKind = "power-on" | "restart" | "reboot" | "deep sleep";

export interface BootInfo {
  kind: BootKind;
  /** Boots of this process. */
  count: number;
  /** How long the stored image had waited when it was restored (the elapsed passed to restore), ms. */
  elapsedMs: number;
  /** Operations and queued readings that came back from the store. */
  restoredOperations: number;
  restoredQueued: number;
}

export interface StoreFigures {
  where: string;
  /** State-file writes over the device's life (kept in the state itself). */
  writes: number;
  /** Writes the store refused (a full disk) since this process started; each is tried again. */
  writeFailures: number;
  /** Operations ended over the device's life. */
  operationsEnded: number;
  /** The last write's size, and the image's inside it, bytes. */
  bytes: number;
  imageBytes: number;
  /** The longest write since this process started (temporary file, fsync, rename, fsync), ms. */
  maxWriteMs: number;
}

const RECENT = 20;

/** The module broke its contract (a save refused): a bug of the built one, a fault of an uploaded one. */
class ModuleFault extends Error {}

/** The module a boot loads, as the firmware's flash holds it. */
const BUILT_MODULE = readFileSync(WASM_PATH);

export class Device {
  api!: TickRetryApi;
  tick!: DeviceTick;
  readonly clock: DeviceClock;
  readonly loopStats = new LoopStats();
  policy: PolicyFields;
  budget: BudgetName;
  settings: Settings;
  readonly ops = new Map<number, Tracked>();
  readonly recent: EndedOperation[] = [];
  /** What the page's live timeline draws: begins, attempt starts, answers, timeouts, ends, boots, sleeps. */
  readonly events = new EventLog(() => this.clock.wallMs());
  /** The module running, as the page's playground fetches it. */
  moduleBytes: Buffer = BUILT_MODULE;
  host: HostCounts = { requestsStarted: 0, requestsAbandoned: 0 };
  queue!: ReadingQueue;
  /** Readings dropped over the device's life because the queue was full. */
  dropped = 0;
  /** Uploaded modules that trapped at run time and were replaced by the built one (this process). */
  moduleTraps = 0;
  /** The highest module version accepted (anti-rollback; kept in the state file). */
  moduleVersionFloor = 0;
  boot!: BootInfo;
  readonly store: StateStore;
  readonly figures: StoreFigures;
  /** The broker connection's session (MQTT transport only). */
  readonly session?: BrokerSession;

  private readonly seed: bigint;
  private readonly tickStart?: number;
  private readonly uploadEveryMs: number;
  private readonly idleSleepMs: number;
  private readonly queueLimit: number;
  private readonly onEnd?: (op: EndedOperation) => void;
  private readonly log?: ReadingsLog;
  private readonly crash?: (point: CrashPoint) => void;
  private readonly mqtt?: MqttTransport;
  private agents!: Agents;
  private loop!: Loop;
  private readonly hal: LoopHal;
  /** The clock's reading at the pass running, and the RTC's minus the clock's (read once a boot). */
  private passMs = 0;
  private rtcOffsetMs = 0;
  private nextReading = 0;
  /** Log lines of changes not yet in the state file; appended to the log once they are. */
  private outbox: LogEvent[] = [];
  /** changes() as of the last write, and whether the readings moved since. */
  private writtenChanges = 0;
  private readingsChanged = false;
  private nextUploadAt: number | undefined;
  private uploadsAsked = 0;
  private stallAsked = 0;
  private powerAsked: { kind: "reboot" } | { kind: "deep sleep"; ms: number } | undefined;
  private asleepUntil: number | undefined;
  private cancelNextPass: (() => void) | undefined;
  private running = false;
  /** Whether the pass's state write succeeded (startAttempt sends only then). */
  private stored = true;
  /** This boot's reading epoch and the next number within it (app/readings.ts, readingId). */
  private epoch = 0;
  /** The epoch is on flash: only then may a reading take a number of it. */
  private epochStored = false;
  private readonly startedMs: number;
  private writesAtStart = 0;

  constructor(options: DeviceOptions) {
    this.seed = options.seed ?? crypto.getRandomValues(new BigUint64Array(1))[0];
    this.policy = options.policy ?? UPLOAD;
    this.budget = options.budget ?? "aws";
    this.tickStart = options.tickStart;
    this.uploadEveryMs = options.uploadEveryMs ?? 3000;
    this.idleSleepMs = options.idleSleepMs ?? 5;
    this.queueLimit = options.queueLimit ?? QUEUE_LIMIT;
    this.onEnd = options.onEnd;
    this.log = options.log;
    this.crash = options.crashAt && crasher(options.crashAt);
    this.store = options.store ?? memoryStore();
    this.figures = {
      where: this.store.where,
      writes: 0,
      writeFailures: 0,
      operationsEnded: 0,
      bytes: 0,
      imageBytes: 0,
      maxWriteMs: 0,
    };
    // Saved settings win over the command line's URL, as NVS does on a board.
    this.settings = this.store.settings.load() ?? defaultSettings(options.upstreamUrl);
    this.clock = options.clock ?? wallClock;
    this.mqtt = options.mqtt;
    if (this.mqtt) {
      useBrokerSettings(this.mqtt, this.settings);
      this.session = new BrokerSession(this.mqtt.link);
      this.policy = mqttUpload(this.policy);
    }
    this.hal = {
      ticks: () => this.tick.at(this.passMs),
      collect: () => this.session?.collect() ?? this.collectAnswer(),
      dropped: () => this.session?.dropped(),
      linkUp: () => this.session?.linkUp() ?? false,
      beginDue: (now) => {
        if (this.running) this.takeReadings(now);
      },
      persist: (now) => {
        this.dropStale(now);
        this.session?.dropStale();
        this.stored = this.writeState(now);
      },
      // Persist before send: an attempt whose state did not reach the store is not sent
      // (the module times it out and retries; the next pass writes again).
      startAttempt: (h, attempt, _id, now) => {
        if (!this.stored) this.loop.abandon(h);
        else if (this.session?.owns(h)) this.session.start(attempt);
        else this.startRequest(h, attempt, now);
      },
      onEvent: (e) => (this.session?.sees(e) ? undefined : this.onLoopEvent(e)),
    };
    this.startedMs = this.clock.nowMs();
    this.powerOn("power-on", 0);
    this.writesAtStart = this.figures.writes;
  }

  start(): void {
    this.running = true;
    this.schedule(0);
  }

  /** Stops the loop and drops every request in flight. */
  stop(): void {
    this.running = false;
    this.cancelNextPass?.();
    this.powerDown();
  }

  /** Asks for one more reading at the next pass (a button press, a test). */
  /** The settings the page saved; over MQTT its broker's apply from the next connect attempt. */
  useSettings(settings: Settings): void {
    this.settings = settings;
    if (this.mqtt) useBrokerSettings(this.mqtt, settings);
  }

  requestUpload(): void {
    this.uploadsAsked++;
  }

  /** Blocks the next pass for `ms`, as a slow flash write blocks a firmware loop. */
  requestStall(ms: number): void {
    this.stallAsked = Math.max(this.stallAsked, ms);
  }

  /** At the next pass: a reset; the module comes back from the stored state. */
  requestReboot(): void {
    this.powerAsked = { kind: "reboot" };
  }

  /** At the next pass: nothing runs for `ms`, then the module comes back from the stored state. */
  requestDeepSleep(ms: number): void {
    this.powerAsked = { kind: "deep sleep", ms };
  }

  /** ms until the device wakes, or undefined when it is awake. */
  asleepForMs(): number | undefined {
    return this.asleepUntil === undefined ? undefined : Math.max(0, this.asleepUntil - this.clock.nowMs());
  }

  /**
   * Ends every live operation CANCELLED (each seen by onEnd) and drops its request: Ctrl-C
   * without a state file, where nothing would carry them to a next start.
   */
  cancelLive(): void {
    this.running = false; // the pass below begins nothing, and none follows it
    this.cancelNextPass?.();
    const now = this.tick.read();
    for (const op of this.ops.values()) {
      if (this.api.state(op.handle) === State.DONE) continue;
      this.api.cancel(op.handle, now);
      op.detail = "cancelled: the device stopped";
      if (op.flight === undefined) continue;
      op.flight.req.destroy();
      op.flight = undefined;
      this.loop.abandon(op.handle);
    }
    this.runLoop(this.clock.nowMs());
  }

  /**
   * Swaps in another build of the module (an upload whose signature the caller checked) as
   * the firmware's tickretry_wasm3_open does: the running instance's image is restored into
   * the new one, so operations, ids, budget and counters carry across and attempts in flight
   * still count. On a refusal (the module's error code) nothing changes. The replacement
   * lives until the next boot, which loads host/library/build/tickretry.wasm again.
   */
  replaceModule(bytes: Buffer): number {
    const now = this.tick.read();
    const image = saveImage(this.api, now);
    if (typeof image === "number") return image;
    const api = instantiate(new WebAssembly.Module(new Uint8Array(bytes)));
    const restored = restoreImage(api, image, now);
    if (restored !== Result.OK) return restored;
    this.api = api;
    this.loop.resume(api, this.loop.saveSlots(), false);
    this.moduleBytes = bytes;
    return Result.OK;
  }

  /** Raises the anti-rollback floor to `version`; the next pass stores it. */
  acceptModuleVersion(version: number): void {
    if (version <= this.moduleVersionFloor) return;
    this.moduleVersionFloor = version;
    this.readingsChanged = true;
  }

  /** State writes a day since this process started (each a change of the kept state); undefined before one. */
  writesPerDay(): number | undefined {
    const writes = this.figures.writes - this.writesAtStart;
    return writes === 0 ? undefined : writes / ((this.clock.nowMs() - this.startedMs) / 86_400_000);
  }

  /** True when the operation has an overall deadline (HAS_DEADLINE). */
  hasDeadline(handle: number): boolean {
    return (this.api.opFlags(handle) & OpFlag.HAS_DEADLINE) !== 0;
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.cancelNextPass = this.clock.after(ms, this.pass);
  }

  /** One pass of the loop at the clock's reading `ms`: what nextDue said. */
  private runLoop(ms: number): number {
    this.passMs = ms;
    const due = this.loop.pass();
    if (this.loop.fault !== 0) throw new Error(`the loop stopped: ${errorName(this.loop.fault)}`);
    return due;
  }

  /**
   * One pass; an uploaded module that traps in it (a RuntimeError) or refuses to save is
   * dropped for the built one, which takes up the stored state as a reboot does: nothing
   * since the last state write is lost, the process runs on. A trap of the built module is
   * a bug: thrown.
   */
  private readonly pass = (): void => {
    try {
      this.runPass();
    } catch (err) {
      const fault = err instanceof WebAssembly.RuntimeError || err instanceof ModuleFault;
      if (!fault || this.moduleBytes === BUILT_MODULE) throw err;
      this.moduleTraps++;
      this.powerDown();
      this.powerOn("reboot", this.boot.count);
      this.schedule(0);
    }
  };

  private runPass(): void {
    const ms = this.clock.nowMs();
    this.loopStats.passStarted(ms);
    if (this.powerAsked !== undefined) return this.cyclePower(this.powerAsked, ms);
    const due = this.runLoop(ms);
    const stall = this.stallAsked;
    this.stallAsked = 0;
    if (stall > 0) this.clock.block(stall);
    this.loopStats.passEnded(this.clock.nowMs(), stall > 0);

    const now = this.tick.at(ms);
    let sleep = due === NextDue.IDLE ? this.idleSleepMs : Math.min(due, this.idleSleepMs);
    if (this.nextUploadAt !== undefined)
      sleep = Math.min(sleep, Math.max(0, ticksUntil(now, this.nextUploadAt)));
    this.schedule(sleep);
  }

  /** Loads the stored state into a new module instance (or starts a new one) and the loop's own records. */
  private powerOn(kind: BootKind, count: number): void {
    const ms = this.clock.nowMs();
    this.rtcOffsetMs = this.clock.wallMs() - ms;
    this.tick = new DeviceTick(this.clock, this.tickStart);
    const booted = bootModule(
      this.store,
      this.tick.at(ms),
      { seed: this.seed, policy: this.policy, budget: this.budget, broker: this.mqtt?.policy },
      ms + this.rtcOffsetMs,
    );
    const s = booted.restored;
    this.api = booted.api;
    this.loop = new Loop(this.api, this.hal);
    const slots = emptySlots();
    slots.live = (s?.pending.length ?? 0) + (s?.session === undefined ? 0 : 1);
    this.loop.resume(this.api, slots, true); // the restore lost every attempt in flight
    this.moduleBytes = BUILT_MODULE; // an uploaded module lives until the next boot, as on a board
    this.host = { requestsStarted: 0, requestsAbandoned: 0 };
    this.agents = keepAliveAgents();
    this.ops.clear();
    this.queue = new ReadingQueue(this.queueLimit, s?.queue);
    // A new epoch each boot, stored by the first pass before any reading is numbered in
    // it: readings a kill lost in memory took numbers no later boot can take again.
    this.epoch = (s?.epoch ?? 0) + 1;
    this.moduleVersionFloor = s?.moduleVersion ?? 0;
    this.nextReading = 0;
    this.epochStored = false;
    this.dropped = s?.dropped ?? 0;
    this.figures.writes = s?.writes ?? 0;
    this.figures.operationsEnded = s?.ended ?? 0;
    this.nextUploadAt = undefined;
    this.outbox = [];
    this.writtenChanges = this.api.changes();
    this.readingsChanged = true; // the new epoch
    const bootKind = kind === "power-on" && s !== undefined ? "restart" : kind;
    this.session?.boot(this.api, this.loop, this.tick.at(ms), s?.session);
    if (s !== undefined) {
      this.policy = s.policy;
      this.budget = s.budget;
      const begunMs = ms;
      for (const p of s.pending) {
        this.ops.set(p.handle, { ...p, begunMs, detail: `restored at ${bootKind}` });
      }
      // The stored state may hold lines the log never got (a kill between the two writes).
      this.log?.append(s.outbox);
    }
    this.boot = {
      kind: bootKind,
      count: count + 1,
      elapsedMs: booted.elapsedMs,
      restoredOperations: s?.pending.length ?? 0,
      restoredQueued: this.queue.length,
    };
    this.events.add(this.tick.at(ms), "boot", 0, 0);
  }

  /** Every connection dies and the instance with it; only the state store remains. */
  private powerDown(): void {
    this.session?.powerDown();
    for (const op of this.ops.values()) op.flight?.req.destroy();
    this.ops.clear();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private cyclePower(power: NonNullable<Device["powerAsked"]>, ms: number): void {
    this.powerAsked = undefined;
    this.powerDown();
    this.loopStats.passEnded(ms, false);
    if (power.kind === "reboot") {
      this.powerOn("reboot", this.boot.count);
      return this.schedule(0);
    }
    this.events.add(this.tick.at(ms), "sleep", 0, 0);
    this.asleepUntil = ms + power.ms;
    this.cancelNextPass = this.clock.after(power.ms, () => {
      this.asleepUntil = undefined;
      this.loopStats.resume();
      this.powerOn("deep sleep", this.boot.count);
      this.schedule(0);
    });
  }

  /** The HAL's collect: the first answer that has arrived, in the order operations began. */
  private collectAnswer(): AttemptAnswer | undefined {
    for (const op of this.ops.values()) {
      const f = op.flight;
      if (f?.result === undefined) continue;
      this.crash?.("answer");
      op.flight = undefined;
      op.detail = f.result.detail;
      this.events.add(
        this.tick.at(this.passMs),
        "answer",
        op.operationId,
        f.attempt,
        outcomeName(f.result.outcome),
      );
      return {
        handle: op.handle,
        attempt: f.attempt,
        outcome: f.result.outcome,
        retryAfter: f.result.retryAfter,
      };
    }
    return undefined;
  }

  private onLoopEvent(e: LoopEvent): void {
    // STALE_REPORT (the answer came after its attempt deadline) is counted by the module;
    // any other refusal is a bug of this host.
    if (e.kind === "report" && e.result < 0 && e.result !== AbiError.STALE_REPORT)
      throw new Error(`report refused: ${errorName(e.result)}`);
    if (e.kind === "end") this.retire(e.handle, e.t);
  }

  /**
   * An operation ended() handed out. This host abandons an attempt of it still out, so
   * the loop releases it in the same pass (the late-answer rule, docs/ABI.md).
   */
  private retire(h: number, now: number): void {
    const op = this.ops.get(h);
    if (op === undefined)
      throw new Error(`ended() handed out ${h} (${errorName(h)}), which this loop does not hold`);
    if (op.flight !== undefined) this.abandon(op, op.flight, now);
    const endReason = this.api.endReason(h);
    const attempts = this.api.attempt(h);
    const seq = this.events.add(now, "end", op.operationId, attempts, "NONE", endReasonName(endReason));
    const ended: EndedOperation = {
      seq,
      operationId: op.operationId,
      reading: op.reading.id,
      endReason,
      attempts,
      lastOutcome: this.api.lastOutcome(h),
      detail: op.detail,
      tookMs: this.passMs - op.begunMs,
    };
    this.recent.unshift(ended);
    if (this.recent.length > RECENT) this.recent.pop();
    this.onEnd?.(ended);
    this.ops.delete(h);
    this.figures.operationsEnded++;
    this.record({
      event: "ended",
      reading: ended.reading,
      operationId: ended.operationId,
      endReason: endReasonName(ended.endReason),
      attempts: ended.attempts,
    });
  }

  private takeReadings(now: number): void {
    if (this.uploadEveryMs > 0 && (this.nextUploadAt === undefined || tickReached(now, this.nextUploadAt))) {
      this.uploadsAsked++;
      this.nextUploadAt = tickAfter(now, this.uploadEveryMs);
    }
    // A free slot takes the oldest queued reading before a new one joins the queue, so
    // a reading is dropped only when every slot is taken and the queue is full.
    for (; this.uploadsAsked > 0 && this.epochStored; this.uploadsAsked--) {
      this.beginQueued(now);
      const reading = takeReading(readingId(this.epoch, this.nextReading++));
      if (this.nextReading === READINGS_PER_EPOCH) this.nextEpoch();
      this.record({ event: "taken", reading: reading.id });
      const dropped = this.queue.push(reading);
      if (dropped !== undefined) {
        this.dropped++;
        this.record({ event: "dropped", reading: dropped.id });
      }
    }
    this.beginQueued(now);
  }

  /** This epoch's numbers are used up: the next ones wait for the next epoch to be stored. */
  private nextEpoch(): void {
    this.epoch++;
    this.nextReading = 0;
    this.epochStored = false;
  }

  private beginQueued(now: number): void {
    // The MQTT gate (docs/device.md): a reading begins only while the broker connection is
    // up; until then it waits in the queue, spending no attempt, budget or deadline.
    if (this.session !== undefined && !this.session.up) return;
    for (
      let r = this.queue.peek();
      r !== undefined && this.ops.size < Limit.OPERATIONS;
      r = this.queue.peek()
    ) {
      const h = this.loop.begin(UPLOAD_POLICY, now);
      if (h === AbiError.TABLE_FULL) return;
      if (h < 0) throw new Error(`begin refused the upload policy: ${errorName(h)}`);
      this.queue.shift();
      const operationId = this.api.operationId(h);
      this.ops.set(h, { handle: h, operationId, reading: r, begunMs: this.passMs, detail: "" });
      this.events.add(now, "begin", operationId, 0);
      this.record({ event: "began", reading: r.id, operationId });
    }
  }

  /** A change to the readings: into the next state-file write, then into the log. */
  private record(event: LogEvent): void {
    this.outbox.push(event);
    this.readingsChanged = true;
  }

  /**
   * Writes the state file when changes() moved or the readings changed, then appends the
   * log lines it made durable. A pass that changed nothing durable writes nothing.
   */
  private writeState(now: number): boolean {
    const api = this.api;
    if (api.changes() === this.writtenChanges && !this.readingsChanged) return true;
    this.crash?.("before-write");
    const image = saveImage(api, now);
    if (typeof image === "number") throw new ModuleFault(`save refused: ${errorName(image)}`);
    const f = this.figures;
    const t0 = this.clock.nowMs();
    const state: DeviceState = {
      // The RTC's reading at `now`: the image's spans count from here.
      savedAtMs: this.passMs + this.rtcOffsetMs,
      image,
      policy: this.policy,
      budget: this.budget,
      epoch: this.epoch,
      moduleVersion: this.moduleVersionFloor,
      nextReading: this.nextReading,
      pending: [...this.ops.values()].map((op) => ({
        operationId: op.operationId,
        handle: op.handle,
        reading: op.reading,
      })),
      queue: this.queue.toArray(),
      dropped: this.dropped,
      session: this.session?.stored(),
      outbox: this.outbox,
      writes: f.writes + 1,
      ended: f.operationsEnded,
    };
    try {
      f.bytes = this.store.save(state);
    } catch {
      // A full or failing disk: counted and shown; everything stays to be written again.
      f.writeFailures++;
      return false;
    }
    this.crash?.("after-write");
    this.epochStored = true;
    // A figure of the write itself, not an input to the pass (0 under a virtual clock).
    f.maxWriteMs = Math.max(f.maxWriteMs, this.clock.nowMs() - t0);
    f.writes++;
    f.imageBytes = image.length;
    this.writtenChanges = api.changes();
    this.readingsChanged = false;
    this.log?.append(this.outbox);
    this.outbox = [];
    return true;
  }

  private startRequest(h: number, attempt: number, now: number): void {
    const op = this.ops.get(h)!;
    this.events.add(now, "start", op.operationId, attempt);
    const done = (result: AttemptResult) => (flight.result = result);
    const flight: Flight = {
      attempt,
      req: this.mqtt
        ? publishReading(this.mqtt, op.operationId, op.reading, done)
        : startAttempt(
            {
              url: this.settings.upstreamUrl,
              operationId: op.operationId,
              attempt,
              body: uploadBody(op.reading),
              agents: this.agents,
              wallMs: () => this.clock.nowMs() + this.rtcOffsetMs,
            },
            done,
          ),
    };
    op.flight = flight;
    this.host.requestsStarted++;
  }

  /**
   * A request whose attempt the module no longer counts (timed out, or its operation
   * ended) will never be reported: free its socket. A timed-out attempt whose retry poll
   * started in the same pass is dropped here too, before the retry goes out.
   */
  private dropStale(now: number): void {
    for (const op of this.ops.values()) {
      const f = op.flight;
      if (f === undefined) continue;
      if (this.api.state(op.handle) === State.IN_FLIGHT && this.api.attempt(op.handle) === f.attempt) {
        continue;
      }
      this.abandon(op, f, now);
    }
  }

  private abandon(op: Tracked, f: Flight, now: number): void {
    op.flight = undefined;
    op.detail = "no answer within the attempt timeout";
    f.req.destroy();
    this.loop.abandon(op.handle);
    this.host.requestsAbandoned++;
    this.events.add(now, "timeout", op.operationId, f.attempt);
  }
}
