// A test driver in virtual time: runs operations against a module instance the way a
// main loop would (report answers, poll and start attempts, take ends from ended(),
// release under the late-answer rule of docs/ABI.md), jumping the simulated clock
// straight to the next thing that can happen, with a bound on steps.
import { EndReason, Outcome, Result } from "./generated/abi.js";
import { SimClock } from "./clock.js";
import { nameOf } from "./names.js";
import { FaultScript } from "./faults.js";
import type { TickRetryApi } from "./tickretry.js";
import { tickAfter, ticksUntil } from "./ticks.js";

/** One line of a run's trace: an attempt started, an answer reported (with report's
 * result), an operation ended, or a note (a restart's). */
export type TraceEvent =
  | { t: number; kind: "start"; handle: number; attempt: number; attemptDeadline: number }
  | { t: number; kind: "report"; handle: number; attempt: number; outcome: number; result: number }
  | { t: number; kind: "end"; handle: number; reason: number; attempts: number }
  | { t: number; kind: "note"; text: string };

interface Pending {
  handle: number;
  attempt: number;
  at: number;
  outcome: number;
  retryAfter: number;
}

/** One line per event, the same text the native trace prints. */
export function formatEvent(e: TraceEvent): string {
  switch (e.kind) {
    case "start":
      return `${e.t} start h=${e.handle} a=${e.attempt}`;
    case "report":
      return `${e.t} report h=${e.handle} a=${e.attempt} ${nameOf(Outcome, e.outcome)} -> ${e.result}`;
    case "end":
      return `${e.t} end h=${e.handle} ${nameOf(EndReason, e.reason)} after ${e.attempts}`;
    case "note":
      return `${e.t} ${e.text}`;
  }
}

/** One operation to run: its policy and the fates its attempts meet. */
export interface Operation {
  /** The policy id it begins under (set on the instance before). */
  policy: number;
  /** What its attempts meet, in order. */
  script: FaultScript;
}

/** What {@link runOperations} runs, and its hooks. */
export interface RunOptions {
  /** Begun at the clock's current tick, in order. */
  operations: Operation[];
  /** Stop after this many loop steps (a guard against a scheduler that never ends); default 10,000. */
  maxSteps?: number;
  /** Called before each step (one pass of the loop, counted from 0); may stall the clock to
   * simulate a blocked loop. Default: none. */
  beforeStep?: (clock: SimClock, step: number) => void;
  /** Called after beforeStep; may save the instance and restore the image into another (a
   * reboot, a deep sleep, a module swap), returning the instance to go on with, whether
   * the answers in flight were lost with it, and a line for the trace. Default: none. */
  restart?: (api: TickRetryApi, clock: SimClock, step: number) => Restart | undefined;
}

/** What a restart hook returns: the instance to go on with. */
export interface Restart {
  /** The instance the image was restored into. */
  api: TickRetryApi;
  /** Whether the answers in flight were lost (a reboot) or are still coming (a module swap). */
  attemptsLost: boolean;
  /** The trace's line for it. */
  note: string;
}

/**
 * Begins the operations at clock.now, in order, and runs until all have ended, as a main
 * loop would, jumping the clock to the next thing that can happen; returns the trace.
 * @example
 * ```ts
 * import { FaultScript, SimClock, configure, create, formatEvent, runOperations } from "tickretry";
 *
 * const api = create(3n);
 * configure(api, "upload", 0, { maxAttempts: 3, attemptTimeout: 500, baseDelay: 100,
 *   maxDelay: 400, throttleBaseDelay: 0, deadline: 0, jitter: "NONE", idempotent: true });
 * const trace = runOperations(api, new SimClock(0), {
 *   operations: [{ policy: 0, script: new FaultScript(["TRANSIENT@50", "SUCCESS@20"]) }],
 * });
 * console.log(trace.map(formatEvent).join("\n")); // ... end h=... SUCCEEDED after 2
 * ```
 */
export function runOperations(api: TickRetryApi, clock: SimClock, options: RunOptions): TraceEvent[] {
  const trace: TraceEvent[] = [];
  const handles = options.operations.map((op) => api.begin(op.policy, clock.now));
  if (handles.some((h) => h < 0)) throw new Error(`begin refused: ${handles}`);
  const scriptOf = new Map(handles.map((h, i) => [h, options.operations[i].script]));
  const pending: Pending[] = [];
  const ended = new Set<number>();
  // Ended operations not yet released: released once none of their attempts is pending.
  const unreleased = new Set<number>();
  const maxSteps = options.maxSteps ?? 10_000;

  for (let step = 0; ended.size < handles.length; step++) {
    if (step >= maxSteps) throw new Error(`no end after ${maxSteps} steps`);
    options.beforeStep?.(clock, step);
    const restart = options.restart?.(api, clock, step);
    if (restart) {
      api = restart.api;
      if (restart.attemptsLost) pending.length = 0;
      trace.push({ t: clock.now, kind: "note", text: restart.note });
    }
    const now = clock.now;
    // Answers that have arrived by now, in arrival order.
    pending.sort((a, b) => ticksUntil(now, a.at) - ticksUntil(now, b.at));
    while (pending.length && ticksUntil(now, pending[0].at) <= 0) {
      const p = pending.shift()!;
      const result = api.report(p.handle, p.attempt, p.outcome, p.retryAfter, now);
      trace.push({
        t: now,
        kind: "report",
        handle: p.handle,
        attempt: p.attempt,
        outcome: p.outcome,
        result,
      });
    }
    for (let h = api.poll(now); h >= 0; h = api.poll(now)) {
      const attempt = api.attempt(h);
      trace.push({ t: now, kind: "start", handle: h, attempt, attemptDeadline: api.attemptDeadline(h) });
      const fate = scriptOf.get(h)!.next();
      if ("hang" in fate) continue;
      pending.push({
        handle: h,
        attempt,
        at: tickAfter(now, fate.latency),
        outcome: Outcome[fate.outcome],
        retryAfter: fate.retryAfter ?? 0,
      });
    }
    for (let h = api.ended(now); h !== Result.NONE; h = api.ended(now)) {
      if (h < 0) throw new Error(`ended failed: ${h}`);
      ended.add(h);
      unreleased.add(h);
      trace.push({ t: now, kind: "end", handle: h, reason: api.endReason(h), attempts: api.attempt(h) });
    }
    for (const h of unreleased) {
      if (pending.some((p) => p.handle === h)) continue;
      const released = api.release(h);
      if (released !== Result.OK) throw new Error(`release refused: ${released}`);
      unreleased.delete(h);
    }
    if (ended.size === handles.length) break;
    // Jump to whichever comes first: the module's next due time or the next answer.
    const due = api.nextDue(now);
    let wait = due === 0xffff_ffff ? Infinity : due;
    for (const p of pending) wait = Math.min(wait, Math.max(0, ticksUntil(now, p.at)));
    if (wait === Infinity) throw new Error("nothing left to wait for, yet operations are live");
    clock.advance(wait);
  }
  return trace;
}
