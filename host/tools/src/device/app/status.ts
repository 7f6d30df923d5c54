// The device's status as JSON: what the setup page polls and the tests and bench read.
// Its fields are boards/page/status-fields.json, the list the sketch's generated writer
// follows too (test/boards/status-fields.test.ts holds both to it). Read between passes through
// the module's queries, which never move its clock: made by the pass for the page
// (app/requests.ts, Snapshot). Its MQTT part is here too.
import {
  Jitter,
  nameOf,
  type PolicyFields,
  OpFlag,
  State,
  ticksUntil,
  COUNTERS,
  endReasonName,
  outcomeName,
  stateName,
  type TickRetryApi,
} from "tickretry";
import type { RunningModule } from "../module.js";
import type { Upstream, UpstreamStats } from "../../upstream/server.js";
import { SCENARIO_NAMES } from "../../upstream/scenarios.js";
import type { BootInfo } from "../boot.js";
import type { DeviceClock } from "../clock.js";
import type { EventLog } from "../events.js";
import type { LoopStats } from "../loop-stats.js";
import type { Running } from "../running.js";
import type { BrokerSession } from "./broker.js";
import type { Kept } from "./kept.js";
import type { DevicePassword } from "./password.js";
import type { Readings, Uploads } from "./readings.js";
import type { DeviceSettings } from "./settings.js";
import type { DeviceEvent } from "../events.js";
import type { StoreFigures } from "./kept.js";
import type { HostCounts } from "./readings.js";
import { settingsStatus } from "./settings.js";
import { READINGS } from "../generated/app-config.js";
import { budgetFields } from "../policies.js";
import type { MqttSide } from "../link/mqtt-simulation.js";
import { flashLifeYears, sketchNvsWritesPerDay } from "../nvs-wear.js";
import type { ConsumerStats } from "../../mqtt/consumer.js";
import type { SessionStatus } from "./broker.js";

/**
 * What the status reads of the device, and nothing more: the rooms it reads, each cut to
 * the members it reads, so that it depends on them rather than on the Device that
 * composes them (which builds its snapshot from here: a circle of imports).
 */
export interface StatusSource {
  readonly running: Pick<Running, "api" | "tick">;
  readonly kept: Pick<Kept, "policy" | "budget" | "figures" | "writesPerDay">;
  readonly loopStats: Pick<LoopStats, "snapshot">;
  readonly uploads: Pick<Uploads, "ops" | "host" | "recent">;
  readonly readings: Pick<Readings, "queue" | "dropped" | "everyMs">;
  readonly events: Pick<EventLog, "list">;
  readonly settings: Pick<DeviceSettings, "current">;
  readonly password: Pick<DevicePassword, "isSet">;
  readonly session?: Pick<BrokerSession, "status">;
  readonly clock: Pick<DeviceClock, "wallMs">;
  readonly boot: BootInfo;
  readonly module: Pick<RunningModule, "rolledBack">;
  asleepForMs(): number | undefined;
}

/** A board's NVS life at the device's rate of state changes (nvs-wear.ts); null before any. */
const flashLife = (changesPerDay: number | undefined): number | null =>
  changesPerDay === undefined ? null : Math.min(999, flashLifeYears(sketchNvsWritesPerDay(changesPerDay)));

export interface OperationStatus {
  operationId: number;
  /** The module's table slot (from slot(handle)). */
  slot: number;
  /** The reading it uploads. */
  reading: number;
  state: string;
  attempt: number;
  maxAttempts: number;
  /** WAITING: ms until the next attempt may start (0 or less: due). */
  nextAttemptInMs: number | null;
  /** IN_FLIGHT: ms until the module times the attempt out. */
  attemptTimeoutInMs: number | null;
  /** ms until the overall deadline. */
  deadlineInMs: number | null;
  lastOutcome: string;
  detail: string;
}

export interface EndedStatus {
  /** Its end event's seq (a poll since SEQ gets the ends after it). */
  seq: number;
  operationId: number;
  reading: number;
  endReason: string;
  attempts: number;
  lastOutcome: string;
  detail: string;
  tookMs: number;
}

export interface DeviceStatus extends MqttStatus {
  device: { name: string; backend: string; abiVersion: number };
  /** The tick, and the RTC (ms since the epoch), the clock that runs on through reboots and sleeps. */
  tick: { now: number; wraps: number; wallMs: number };
  loop: {
    passes: number;
    lastGapMs: number;
    maxGapMs: number;
    /** The largest gap after the start-up (PAGE.loopStartupMs). */
    steadyMaxGapMs: number;
    p99GapMs: number;
    maxStalledGapMs: number;
    stalls: number;
  };
  budget: { on: boolean; tokensMilli: number };
  counters: Record<string, number>;
  host: HostCounts;
  /** Readings waiting for a slot, those dropped because that queue was full, and the
   * period: this device's (sped up for a demo, or 0: only when asked) and the firmware's. */
  readings: { queued: number; queueLimit: number; dropped: number; everyMs: number; firmwareEveryMs: number };
  /** The state file: writes, and what one operation costs in writes over the device's life. */
  store: StoreFigures & { writesPerOperation: number | null; flashLifeYears: number | null };
  /** The last boot (its kind: what rolled an uploaded module back, when one was), and how
   * long the device still sleeps (null: awake). */
  power: Omit<BootInfo, "kind"> & { kind: string; asleepForMs: number | null };
  operations: OperationStatus[];
  recent: EndedStatus[];
  events: DeviceEvent[];
  settings: ReturnType<typeof settingsStatus>;
  security: { devicePasswordSet: boolean; moduleUpload: boolean };
  faults: { scenarios: string[]; scenario: string };
  /** The upload policy and budget in force (the Policy view starts from them); null on a board. */
  policy: LivePolicy | null;
  upstream: Omit<UpstreamStats, "scenario"> | null;
}

/** setPolicy's fields the Policy view's form shows, the jitter by name, and the budget. */
export type LivePolicy = Pick<
  PolicyFields,
  | "maxAttempts"
  | "attemptTimeout"
  | "baseDelay"
  | "maxDelay"
  | "throttleBaseDelay"
  | "deadline"
  | "idempotent"
> & {
  jitter: string;
  /** The budget preset's name and fields, in milli-tokens. */
  budget: Record<string, number | string | boolean>;
};

/** The upload policy and budget in force, as the Policy view's form has them. */
function livePolicy(device: StatusSource): LivePolicy {
  const p = device.kept.policy;
  const b = budgetFields(device.kept.budget);
  const milli = (v: number | undefined) => v ?? 0;
  return {
    maxAttempts: p.maxAttempts,
    attemptTimeout: p.attemptTimeout,
    baseDelay: p.baseDelay,
    maxDelay: p.maxDelay,
    throttleBaseDelay: p.throttleBaseDelay,
    deadline: p.deadline,
    jitter: typeof p.jitter === "string" ? p.jitter : nameOf(Jitter, p.jitter),
    idempotent: p.idempotent ?? false,
    budget: {
      name: device.kept.budget,
      capacity: milli(b.capacity),
      initial: milli(b.initial),
      retryCost: milli(b.retryCost),
      timeoutRetryCost: milli(b.timeoutRetryCost),
      threshold: milli(b.threshold),
      failureCost: milli(b.failureCost),
      firstAttemptDeposit: milli(b.firstAttemptDeposit),
      successDeposit: milli(b.successDeposit),
      refundOnSuccess: b.refundOnSuccess ?? false,
      off: b.off ?? false,
    },
  };
}

/** The simulated world around the device: the upstream and the MQTT side started with it (none on a board). */
export interface World {
  upstream?: Upstream;
  mqtt?: MqttSide;
}

/** True when the operation has an overall deadline (HAS_DEADLINE). */
const hasDeadline = (api: TickRetryApi, handle: number): boolean =>
  (api.opFlags(handle) & OpFlag.HAS_DEADLINE) !== 0;

/** The live operations, as the module's queries give them at tick `now`. */
function operationsOf(device: StatusSource, now: number): OperationStatus[] {
  const api = device.running.api;
  return [...device.uploads.ops.values()].map((op) => {
    const h = op.handle;
    const state = api.state(h);
    return {
      operationId: op.operationId,
      slot: api.slot(h),
      reading: op.reading.id,
      state: stateName(state),
      attempt: api.attempt(h),
      maxAttempts: device.kept.policy.maxAttempts,
      nextAttemptInMs: state === State.WAITING ? ticksUntil(now, api.nextAttemptAt(h)) : null,
      attemptTimeoutInMs: state === State.IN_FLIGHT ? ticksUntil(now, api.attemptDeadline(h)) : null,
      deadlineInMs: state !== State.DONE && hasDeadline(api, h) ? ticksUntil(now, api.deadline(h)) : null,
      lastOutcome: outcomeName(api.lastOutcome(h)),
      detail: op.detail,
    };
  });
}

/** The loop's gaps and passes. */
function loopOf(device: StatusSource): DeviceStatus["loop"] {
  const loop = device.loopStats.snapshot();
  return {
    passes: loop.passes,
    lastGapMs: loop.lastGapMs,
    maxGapMs: loop.maxGapMs,
    steadyMaxGapMs: loop.steadyMaxGapMs,
    p99GapMs: loop.p99GapMs,
    maxStalledGapMs: loop.maxStalledGapMs,
    stalls: loop.stalls,
  };
}

/** The state file's figures and what they cost over a board's life. */
function storeOf(device: StatusSource): DeviceStatus["store"] {
  const f = device.kept.figures;
  return {
    ...f,
    writesPerOperation: f.operationsEnded === 0 ? null : f.writes / f.operationsEnded,
    flashLifeYears: flashLife(device.kept.writesPerDay()),
  };
}

/** The last ended operations, newest first. */
function recentOf(device: StatusSource): EndedStatus[] {
  return device.uploads.recent.map((e) => ({
    seq: e.seq,
    operationId: e.operationId,
    reading: e.reading,
    endReason: endReasonName(e.endReason),
    attempts: e.attempts,
    lastOutcome: outcomeName(e.lastOutcome),
    detail: e.detail,
    tookMs: Math.round(e.tookMs),
  }));
}

/** The simulated upstream's faults and figures (none without one). */
function upstreamOf(upstream?: Upstream): Pick<DeviceStatus, "faults" | "upstream"> {
  const up = upstream?.stats();
  return {
    faults: { scenarios: upstream ? [...SCENARIO_NAMES] : [], scenario: up?.scenario ?? "" },
    upstream: up
      ? {
          requests: up.requests,
          stored: up.stored,
          evicted: up.evicted,
          replays: up.replays,
          resets: up.resets,
          holding: up.holding,
        }
      : null,
  };
}

/** The whole status (what the page's first poll gets; page/status-delta.ts cuts the later ones). */
export function deviceStatus(device: StatusSource, world: World = {}): DeviceStatus {
  const api = device.running.api;
  const now = device.running.tick.read();
  return {
    device: { name: "simulator", backend: "v8", abiVersion: api.abiVersion() },
    tick: { now, wraps: device.running.tick.wraps, wallMs: Math.floor(device.clock.wallMs()) },
    loop: loopOf(device),
    budget: { on: device.kept.budget !== "off", tokensMilli: api.tokens() },
    counters: Object.fromEntries(COUNTERS.map(([name, id]) => [name, api.counter(id)])),
    host: { ...device.uploads.host },
    readings: {
      queued: device.readings.queue.length,
      queueLimit: device.readings.queue.limit,
      dropped: device.readings.dropped,
      everyMs: device.readings.everyMs,
      firmwareEveryMs: READINGS.everyMs,
    },
    store: storeOf(device),
    power: {
      ...device.boot,
      kind: device.module.rolledBack ?? device.boot.kind,
      asleepForMs: device.asleepForMs() ?? null,
    },
    operations: operationsOf(device, now),
    recent: recentOf(device),
    events: device.events.list(),
    settings: settingsStatus(device.settings.current),
    security: { devicePasswordSet: device.password.isSet, moduleUpload: true },
    ...upstreamOf(world.upstream),
    policy: livePolicy(device),
    ...mqttStatus(device, now, world.mqtt),
  };
}

// The MQTT part of /status.json: each session the device holds (here the broker
// connection; the sketch adds its Wi-Fi), the broker, and the consumer started beside
// it. An HTTP device has no session and null for the other two.
export interface BrokerStatus {
  url: string;
  /** True for the embedded broker, which the page's "Restart broker" restarts. */
  embedded: boolean;
  restarts: number;
}

export type ConsumerStatus = Omit<ConsumerStats, "connects">;

export interface MqttStatus {
  sessions: SessionStatus[];
  broker: BrokerStatus | null;
  consumer: ConsumerStatus | null;
}

export function mqttStatus(device: StatusSource, now: number, mqtt: MqttSide | undefined): MqttStatus {
  const c = mqtt?.consumer?.stats();
  return {
    sessions: device.session ? [device.session.status(now)] : [],
    broker: mqtt
      ? {
          url: mqtt.transport.brokerUrl,
          embedded: mqtt.broker !== undefined,
          restarts: mqtt.broker?.restarts() ?? 0,
        }
      : null,
    consumer: c
      ? {
          connected: c.connected,
          received: c.received,
          stored: c.stored,
          replays: c.replays,
          duplicates: c.duplicates,
          unparseable: c.unparseable,
        }
      : null,
  };
}
