// The device's status as JSON: what the setup page polls and the tests and bench read.
// Read between passes through the module's queries, which never move its clock.
import { State } from "../abi.js";
import type { Upstream, UpstreamStats } from "../upstream/server.js";
import { ticksUntil } from "../ticks.js";
import type { BootInfo, Device, HostCounts, StoreFigures } from "./loop.js";
import type { LoopFigures } from "./loop-stats.js";
import { COUNTERS, endReasonName, outcomeName, stateName } from "../names.js";

export interface OperationStatus {
  operationId: number;
  handle: number;
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
  endReason: string;
  detail: string;
}

export interface EndedStatus {
  operationId: number;
  reading: number;
  endReason: string;
  attempts: number;
  lastOutcome: string;
  detail: string;
  tookMs: number;
}

export interface DeviceStatus {
  tick: { now: number; wraps: number; start: number };
  loop: LoopFigures;
  budget: { name: string; tokensMilli: number };
  counters: Record<string, number>;
  host: HostCounts;
  /** Readings waiting for a slot, and those dropped because that queue was full. */
  readings: { queued: number; queueLimit: number; dropped: number };
  /** The state file: writes, and what one operation costs in writes over the device's life. */
  store: StoreFigures & { writesPerOperation: number | null };
  /** The last boot, and how long the device still sleeps (null: awake). */
  power: BootInfo & { asleepForMs: number | null };
  operations: OperationStatus[];
  recent: EndedStatus[];
  settings: { ssid: string; passwordSet: boolean; upstreamUrl: string };
  upstream: UpstreamStats | null;
}

export function deviceStatus(device: Device, upstream?: Upstream): DeviceStatus {
  const api = device.api;
  const now = device.tick.read();
  const operations: OperationStatus[] = [...device.ops.values()].map((op) => {
    const h = op.handle;
    const state = api.state(h);
    return {
      operationId: op.operationId,
      handle: h,
      slot: api.slot(h),
      reading: op.reading.id,
      state: stateName(state),
      attempt: api.attempt(h),
      maxAttempts: device.policy.maxAttempts,
      nextAttemptInMs: state === State.WAITING ? ticksUntil(now, api.nextAttemptAt(h)) : null,
      attemptTimeoutInMs: state === State.IN_FLIGHT ? ticksUntil(now, api.attemptDeadline(h)) : null,
      deadlineInMs: state !== State.DONE && device.hasDeadline(h) ? ticksUntil(now, api.deadline(h)) : null,
      lastOutcome: outcomeName(api.lastOutcome(h)),
      endReason: endReasonName(api.endReason(h)),
      detail: op.detail,
    };
  });
  return {
    tick: { now, wraps: device.tick.wraps, start: device.tick.start },
    loop: device.loopStats.snapshot(),
    budget: { name: device.budget, tokensMilli: api.tokens() },
    counters: Object.fromEntries(COUNTERS.map(([name, id]) => [name, api.counter(id)])),
    host: { ...device.host },
    readings: { queued: device.queue.length, queueLimit: device.queue.limit, dropped: device.dropped },
    store: {
      ...device.figures,
      writesPerOperation:
        device.figures.operationsEnded === 0 ? null : device.figures.writes / device.figures.operationsEnded,
    },
    power: { ...device.boot, asleepForMs: device.asleepForMs() ?? null },
    operations,
    recent: device.recent.map((e) => ({
      ...e,
      endReason: endReasonName(e.endReason),
      lastOutcome: outcomeName(e.lastOutcome),
    })),
    settings: {
      ssid: device.settings.ssid,
      passwordSet: device.settings.password !== "",
      upstreamUrl: device.settings.upstreamUrl,
    },
    upstream: upstream?.stats() ?? null,
  };
}
