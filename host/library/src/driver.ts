// A test driver in virtual time: runs operations against a module instance the way a
// main loop would (report answers, poll and start attempts, take ends from ended(),
// release under the late-answer rule of docs/ABI.md), jumping the simulated clock
// straight to the next thing that can happen, with a bound on steps.
import { EndReason, Outcome, Result } from "./generated/abi.js";
import { SimClock } from "./clock.js";
import { nameOf } from "./names.js";
import { FaultScript } from "./faults.js";
import type { TickRetryApi } from "./tickretry.js";
import { tickAfter, tickReached, ticksUntil } from "./ticks.js";

/** One line of a run's trace: an attempt started, an answer reported (with report's
 * result), an attempt the module timed out (no answer by its attempt deadline), an
 * operation ended, or a note (a restart's). */
export type TraceEvent =
  | { t: number; kind: "start"; handle: number; attempt: number; attemptDeadline: number }
  | { t: number; kind: "report"; handle: number; attempt: number; outcome: number; result: number }
  | { t: number; kind: "timeout"; handle: number; attempt: number }
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
    case "timeout":
      return `${e.t} timeout h=${e.handle} a=${e.attempt}`;
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

/** What one run keeps between loop steps. */
interface Run {
  api: TickRetryApi;
  trace: TraceEvent[];
  scriptOf: Map<number, FaultScript>;
  /** Answers on their way, in no order. */
  pending: Pending[];
  /** Per handle, the attempt the module has out and its deadline, until it is answered in
   * time or the module times it out. */
  timing: Map<number, { attempt: number; deadline: number }>;
  ended: Set<number>;
  /** Ended operations not yet released: released once none of their attempts is pending. */
  unreleased: Set<number>;
}

/** Reports the answers that have arrived by now, in arrival order. */
function reportArrived(run: Run, now: number): void {
  run.pending.sort((a, b) => ticksUntil(now, a.at) - ticksUntil(now, b.at));
  while (run.pending.length && ticksUntil(now, run.pending[0].at) <= 0) {
    const p = run.pending.shift()!;
    const result = run.api.report(p.handle, p.attempt, p.outcome, p.retryAfter, now);
    if (result === Result.OK) run.timing.delete(p.handle);
    const { handle, attempt, outcome } = p;
    run.trace.push({ t: now, kind: "report", handle, attempt, outcome, result });
  }
}

/** A line for each attempt whose deadline has passed unanswered: the module timed it out
 * (its lastOutcome says TIMEOUT), unless the operation went some other way meanwhile. */
function noteTimeouts(run: Run, now: number): void {
  const due = [...run.timing].filter(([, t]) => tickReached(now, t.deadline));
  if (due.length === 0) return;
  run.api.nextDue(now); // applies what is due by now, as the report or poll after it would
  for (const [handle, { attempt }] of due) {
    run.timing.delete(handle);
    if (run.api.lastOutcome(handle) !== Outcome.TIMEOUT) continue;
    run.trace.push({ t: now, kind: "timeout", handle, attempt });
  }
}

/** Polls until NONE, starting each attempt on its script's next fate. */
function startDue(run: Run, now: number): void {
  for (let h = run.api.poll(now); h >= 0; h = run.api.poll(now)) {
    const attempt = run.api.attempt(h);
    const attemptDeadline = run.api.attemptDeadline(h);
    run.trace.push({ t: now, kind: "start", handle: h, attempt, attemptDeadline });
    run.timing.set(h, { attempt, deadline: attemptDeadline });
    const fate = run.scriptOf.get(h)!.next();
    if ("hang" in fate) continue;
    run.pending.push({
      handle: h,
      attempt,
      at: tickAfter(now, fate.latency),
      outcome: Outcome[fate.outcome],
      retryAfter: fate.retryAfter ?? 0,
    });
  }
}

/** Takes every ended operation from ended(), then releases those none of whose attempts
 * is pending (the late-answer rule). */
function takeEnded(run: Run, now: number): void {
  const { api } = run;
  for (let h = api.ended(now); h !== Result.NONE; h = api.ended(now)) {
    if (h < 0) throw new Error(`ended failed: ${h}`);
    run.ended.add(h);
    run.unreleased.add(h);
    run.trace.push({ t: now, kind: "end", handle: h, reason: api.endReason(h), attempts: api.attempt(h) });
  }
  for (const h of run.unreleased) {
    if (run.pending.some((p) => p.handle === h)) continue;
    const released = api.release(h);
    if (released !== Result.OK) throw new Error(`release refused: ${released}`);
    run.unreleased.delete(h);
  }
}

/** Ticks until whichever comes first: the module's next due time or the next answer. */
function nextWait(run: Run, now: number): number {
  const due = run.api.nextDue(now);
  let wait = due === 0xffff_ffff ? Infinity : due;
  for (const p of run.pending) wait = Math.min(wait, Math.max(0, ticksUntil(now, p.at)));
  if (wait === Infinity) throw new Error("nothing left to wait for, yet operations are live");
  return wait;
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
  const handles = options.operations.map((op) => api.begin(op.policy, clock.now));
  if (handles.some((h) => h < 0)) throw new Error(`begin refused: ${handles}`);
  const run: Run = {
    api,
    trace: [],
    scriptOf: new Map(handles.map((h, i) => [h, options.operations[i].script])),
    pending: [],
    timing: new Map(),
    ended: new Set(),
    unreleased: new Set(),
  };
  const maxSteps = options.maxSteps ?? 10_000;
  for (let step = 0; run.ended.size < handles.length; step++) {
    if (step >= maxSteps) throw new Error(`no end after ${maxSteps} steps`);
    options.beforeStep?.(clock, step);
    const restart = options.restart?.(run.api, clock, step);
    if (restart) {
      run.api = restart.api;
      // Lost answers end their attempts as AMBIGUOUS in the restore, not by a timeout.
      if (restart.attemptsLost) run.pending.length = 0;
      if (restart.attemptsLost) run.timing.clear();
      run.trace.push({ t: clock.now, kind: "note", text: restart.note });
    }
    const now = clock.now;
    noteTimeouts(run, now);
    reportArrived(run, now);
    startDue(run, now);
    takeEnded(run, now);
    if (run.ended.size === handles.length) break;
    clock.advance(nextWait(run, now));
  }
  return run.trace;
}
