// The device's status as JSON: what the setup page polls and the tests and bench read.
// Read between passes through the module's queries, which never move its clock.
import { State } from "../abi.js";
import type { Upstream, UpstreamStats } from "../upstream/server.js";
import { ticksUntil } from "../ticks.js";
import type { Device, HostCounts } from "./loop.js";
import type { LoopFigures } from "./loop-stats.js";
import { COUNTERS, endReasonName, outcomeName, stateName } from "../names.js";

export interface OperationStatus {
  operationId: number;
  handle: number;
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
