// What the fleet simulators' events do (host/tools/src/event-queue.ts orders them), and how
// often a run reports its progress.

/** What an event does; the simulator dispatches on it. */
export const EventKind = {
  /** A scripted change of the dependency (freeze, resume, capacity). arg: script index. */
  DEPENDENCY_CHANGE: 0,
  /** A worker finishes serving a request. arg: request id. */
  SERVICE_DONE: 1,
  /** An answer reaches its device. arg: request id. */
  RESPONSE: 2,
  /** A device's main loop runs: its module has something due, or an operation is to begin. */
  WAKE: 3,
  /** Every device loses power (FleetSettings.powerCut). */
  POWER_CUT: 4,
  /** Power is back: every device boots. */
  BOOT: 5,
} as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

/** Events a simulator runs between progress reports: a report per event would cost more
 * than the event. */
export const PROGRESS_EVERY = 8192;
