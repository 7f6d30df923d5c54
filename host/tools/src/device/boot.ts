// Booting the module, as the firmware does at power-on, after a reset and on waking from
// deep sleep: a fresh instance, then either a new scheduler (nothing stored yet) or the
// stored image restored into it. Restoring passes the time the image waited (the RTC's
// reading since the save: a reset or a sleep does not stop it) and RESTORE_ATTEMPTS_LOST,
// since every connection died with the old instance: an attempt that was in flight ends
// AMBIGUOUS and, the upload being idempotent, is retried under the same operation id.
import {
  Counter,
  Limit,
  Loop,
  emptySlots,
  type LoopHal,
  RestoreFlag,
  Result,
  restoreImage,
  errorName,
  type PolicyFields,
  instantiate,
  seedHalves,
  type TickRetryApi,
} from "tickretry";
import { configureBroker, configureUpload, type BudgetName } from "./policies.js";
import { StateFileError, type DeviceState, type KeptParts, type StateStore } from "./app/kept.js";
import type { BrokerSession } from "./app/broker.js";
import type { Readings, Uploads } from "./app/readings.js";
import type { RunningModule } from "./module.js";
import type { Running } from "./running.js";

const ENDED = [
  Counter.ENDED_SUCCEEDED,
  Counter.ENDED_PERMANENT,
  Counter.ENDED_EXHAUSTED,
  Counter.ENDED_DEADLINE,
  Counter.ENDED_BUDGET,
  Counter.ENDED_AMBIGUOUS,
  Counter.ENDED_CANCELLED,
];

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

export interface Booted {
  api: TickRetryApi;
  /** The stored state the module was restored from; undefined for a new scheduler. */
  restored?: DeviceState;
  /** The ticks the image waited, as passed to restore. */
  elapsedMs: number;
}

/** A new scheduler with the upload policy, or the one `store` holds; throws StateFileError for a bad store. */
export function bootModule(
  store: StateStore,
  now: number,
  fresh: { seed: bigint; policy: PolicyFields; budget: BudgetName; broker?: PolicyFields },
  /** The RTC's reading at `now`: how long the stored image waited is measured by it. */
  wallMs: number,
): Booted {
  const stored = store.load();
  const api = instantiate();
  if (stored === undefined) {
    api.init(...seedHalves(fresh.seed));
    configureUpload(api, fresh.policy, fresh.budget);
    if (fresh.broker) configureBroker(api, fresh.broker);
    return { api, elapsedMs: 0 };
  }
  const refuse = (what: string): never => {
    throw new StateFileError(`state file ${store.where}: ${what}; move it away to start afresh`);
  };
  const elapsedMs = Math.min(Limit.MAX_SPAN, Math.max(0, Math.round(wallMs - stored.savedAtMs)));
  const r = restoreImage(api, stored.image, now, elapsedMs, RestoreFlag.ATTEMPTS_LOST);
  if (r !== Result.OK) refuse(`the module refused its image (${errorName(r)})`);
  for (const p of stored.pending) {
    if (api.operationId(p.handle) !== p.operationId) {
      refuse(
        `reading ${p.reading.id} is under operation ${p.operationId}, which handle ${p.handle} does not hold`,
      );
    }
  }
  const session = stored.session;
  if (fresh.broker === undefined && session !== undefined) {
    refuse("it holds an MQTT broker session; start it with --transport mqtt");
  }
  // A state an HTTP device wrote has no broker policy yet.
  if (fresh.broker !== undefined && session === undefined) configureBroker(api, fresh.broker);
  if (session !== undefined && api.operationId(session.handle) !== session.operationId) {
    refuse(`the broker session ${session.operationId} is not under handle ${session.handle}`);
  }
  // Every operation the image holds is a pending reading's (or the broker session), or the
  // loop would meet one it does not know. Ended ones are released before a save, so the image holds BEGUN minus
  // the ends, counted in an instance restored with no time passed and no attempt lost
  // (which, unlike the one above, ends nothing while restoring).
  const probe = instantiate();
  restoreImage(probe, stored.image, now, 0, 0);
  const live = probe.counter(Counter.BEGUN) - ENDED.reduce((n, c) => n + probe.counter(c), 0);
  const known = stored.pending.length + (session === undefined ? 0 : 1);
  if (live !== known) {
    refuse(`the image holds ${live} operations, field pending ${stored.pending.length}`);
  }
  return { api, restored: stored, elapsedMs };
}

/** A boot's loop over the instance `running` holds, taking up what `restored` kept: the
 * restore lost every attempt in flight. */
export function startLoop(running: Running, hal: LoopHal, restored: DeviceState | undefined): void {
  running.loop = new Loop(running.api, hal);
  const slots = emptySlots();
  slots.live = (restored?.pending.length ?? 0) + (restored?.session === undefined ? 0 : 1);
  running.loop.resume(running.api, slots, true);
}

/** What a state write takes from the rooms besides the kept state's own. */
export function keptParts(rooms: {
  readings: Readings;
  module: RunningModule;
  uploads: Uploads;
  session?: BrokerSession;
}): KeptParts {
  const pending = [...rooms.uploads.ops.values()].map((op) => ({
    operationId: op.operationId,
    handle: op.handle,
    reading: op.reading,
  }));
  return {
    ...rooms.readings.kept(),
    moduleVersion: rooms.module.versionFloor,
    pending,
    session: rooms.session?.stored(),
  };
}
