// A test driver in virtual time: runs operations through the main loop (loop.ts) against
// a module instance, with a HAL whose attempts meet scripted fates, jumping the simulated
// clock straight to the next thing that can happen, with a bound on steps.
import { EndReason, Error as AbiError, NextDue, Outcome } from "./generated/abi.js";
import { SimClock } from "./clock.js";
import { nameOf, resultName } from "./names.js";
import { FaultScript } from "./faults.js";
import { Loop, type AttemptAnswer, type LoopEvent, type LoopHal } from "./loop.js";
import type { TickRetryApi } from "./tickretry.js";
import { tickAfter, tickReached, ticksUntil } from "./ticks.js";

/** One line of a run's trace: an attempt started, an answer reported (with report's
 * result), an attempt the module timed out (no answer by its attempt deadline), an
 * operation ended, a session UP, a lost connection dropped (drop's result), the link's
 * return (linkUp's result), or a note (a restart's, a pass's). Every event of an operation
 * carries its operationId, the same on each attempt, since a handle's slot is reused once
 * the operation is released. {@link https://github.com/tickretry/tickretry/blob/main/docs/host-tests.md | host-tests.md} lists the fields kind by kind. */
export type TraceEvent =
  | {
      t: number;
      kind: "start";
      handle: number;
      operationId: number;
      attempt: number;
      attemptDeadline: number;
    }
  | {
      t: number;
      kind: "report";
      handle: number;
      operationId: number;
      attempt: number;
      outcome: number;
      result: number;
    }
  | { t: number; kind: "timeout"; handle: number; operationId: number; attempt: number }
  | { t: number; kind: "end"; handle: number; operationId: number; reason: number; attempts: number }
  | { t: number; kind: "up"; handle: number; operationId: number; attempt: number }
  | { t: number; kind: "drop"; handle: number; operationId: number; result: number }
  | { t: number; kind: "link-up"; result: number }
  | { t: number; kind: "note"; text: string };

interface Pending {
  answer: AttemptAnswer;
  /** Arrival tick. */
  at: number;
  /** Start order, which breaks ties in arrival. */
  seq: number;
}

/**
 * One line per event, the same text the C library's trace (tickretry_loop_event_format)
 * prints; results by name (`-> OK`, `-> STALE_REPORT`).
 * @example
 * ```ts
 * import { formatEvent } from "tickretry";
 *
 * const line = formatEvent({ t: 40, kind: "report", handle: 16, operationId: 7, attempt: 1, outcome: 1, result: 0 });
 * console.log(line); // 40 report h=16 a=1 SUCCESS -> OK
 * ```
 */
export function formatEvent(e: TraceEvent): string {
  switch (e.kind) {
    case "start":
      return `${e.t} start h=${e.handle} a=${e.attempt}`;
    case "report":
      return `${e.t} report h=${e.handle} a=${e.attempt} ${nameOf(Outcome, e.outcome)} -> ${resultName(e.result)}`;
    case "timeout":
      return `${e.t} timeout h=${e.handle} a=${e.attempt}`;
    case "end":
      return `${e.t} end h=${e.handle} ${nameOf(EndReason, e.reason)} after ${e.attempts}`;
    case "up":
      return `${e.t} up h=${e.handle} a=${e.attempt}`;
    case "drop":
      return `${e.t} drop h=${e.handle} -> ${resultName(e.result)}`;
    case "link-up":
      return `${e.t} link-up -> ${resultName(e.result)}`;
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
  /** Connections lost: at tick `at`, the session begun as `operations[operation]` loses
   * its connection, which the HAL hands back (Loop's dropped) at the first pass from then
   * on, in list order. Default: none. */
  drops?: { at: number; operation: number }[];
  /** Ticks at which the link comes back, which the HAL tells (Loop's linkUp) at the first
   * pass from then on, in list order. Default: none. */
  linkUps?: number[];
  /** A note for the trace after each pass, given the instance and what the pass returned
   * (nextDue's answer): the differential test traces it to compare two loops pass by
   * pass. Default: none. */
  passNote?: (api: TickRetryApi, due: number) => string;
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

/** The driver's world: answers on their way, each operation's script, the trace. */
class Sim implements LoopHal {
  readonly pending: Pending[] = [];
  readonly trace: TraceEvent[] = [];
  /** The operations' handles, in begin order. */
  readonly handles: number[] = [];
  /** Each handle's operation, from its latest start (or up): the loop's events other than
   * those do not carry it. */
  private readonly operationIds = new Map<number, number>();
  private seq = 0;
  private readonly drops: { at: number; operation: number }[];
  private readonly linkUps: number[];
  constructor(
    readonly clock: SimClock,
    readonly scriptOf: Map<number, FaultScript>,
    private readonly attemptDeadline: (handle: number) => number,
    options: RunOptions,
  ) {
    this.drops = [...(options.drops ?? [])];
    this.linkUps = [...(options.linkUps ?? [])];
  }

  ticks(): number {
    return this.clock.now;
  }

  /** The earliest answer that has arrived by now (ties: the one started first). */
  collect(now: number): AttemptAnswer | undefined {
    let best = -1;
    for (let i = 0; i < this.pending.length; i++) {
      const p = this.pending[i];
      if (!tickReached(now, p.at)) continue;
      const b = this.pending[best];
      const d = ticksUntil(now, p.at);
      if (best < 0 || d < ticksUntil(now, b.at) || (d === ticksUntil(now, b.at) && p.seq < b.seq)) best = i;
    }
    return best < 0 ? undefined : this.pending.splice(best, 1)[0].answer;
  }

  /** The next lost connection in list order, once its tick is reached. */
  dropped(now: number): number | undefined {
    const d = this.drops[0];
    if (d === undefined || !tickReached(now, d.at)) return undefined;
    this.drops.shift();
    return this.handles[d.operation];
  }

  /** Whether a link-up's tick was reached since the last pass. */
  linkUp(now: number): boolean {
    const before = this.linkUps.length;
    while (this.linkUps.length > 0 && tickReached(now, this.linkUps[0])) this.linkUps.shift();
    return this.linkUps.length < before;
  }

  startAttempt(handle: number, attempt: number, _operationId: number, now: number): void {
    const fate = this.scriptOf.get(handle)!.next();
    if ("hang" in fate) return;
    const answer = { handle, attempt, outcome: Outcome[fate.outcome], retryAfter: fate.retryAfter ?? 0 };
    this.pending.push({ answer, at: tickAfter(now, fate.latency), seq: this.seq++ });
  }

  onEvent(e: LoopEvent): void {
    if (e.kind === "start" || e.kind === "up") this.operationIds.set(e.handle, e.operationId);
    const { t, kind } = e;
    switch (kind) {
      case "start":
        return void this.trace.push({ ...e, attemptDeadline: this.attemptDeadline(e.handle) });
      case "end":
        return void this.trace.push({
          t,
          kind,
          handle: e.handle,
          operationId: e.operationId,
          reason: e.reason,
          attempts: e.attempt,
        });
      case "up":
        return void this.trace.push({
          t,
          kind,
          handle: e.handle,
          operationId: e.operationId,
          attempt: e.attempt,
        });
      case "link-up":
        return void this.trace.push(e);
      default:
        return void this.trace.push({ ...e, operationId: this.operationIds.get(e.handle) ?? 0 });
    }
  }

  /** Ticks from now to whichever comes first: the module's next due time, the next answer,
   * the next lost connection or link-up. */
  wait(due: number): number {
    let wait = due === NextDue.IDLE ? Infinity : due;
    const next = [
      ...this.pending.map((p) => p.at),
      ...this.drops.slice(0, 1).map((d) => d.at),
      ...this.linkUps.slice(0, 1),
    ];
    for (const at of next) wait = Math.min(wait, Math.max(0, ticksUntil(this.clock.now, at)));
    if (wait === Infinity) throw new Error("nothing left to wait for, yet operations are live");
    return wait;
  }
}

/**
 * Begins the operations at clock.now, in order, and runs the loop ({@link Loop})
 * until all have ended, jumping the clock to the next thing that can happen; the trace.
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
  const n = options.operations.length;
  for (const d of options.drops ?? []) {
    if (!Number.isInteger(d.operation) || d.operation < 0 || d.operation >= n)
      throw new Error(`a drop names operation ${d.operation}; there are operations 0 to ${n - 1}`);
  }
  const scriptOf = new Map<number, FaultScript>();
  const sim = new Sim(clock, scriptOf, (h) => loop.api.attemptDeadline(h), options);
  const loop = new Loop(api, sim);
  for (const op of options.operations) {
    const h = loop.begin(op.policy, clock.now);
    if (h < 0) throw new Error(`begin refused: ${h}`);
    scriptOf.set(h, op.script);
    sim.handles.push(h);
  }
  const maxSteps = options.maxSteps ?? 10_000;
  for (let step = 0; loop.live > 0; step++) {
    if (step >= maxSteps) throw new Error(`no end after ${maxSteps} steps`);
    options.beforeStep?.(clock, step);
    const restart = options.restart?.(loop.api, clock, step);
    if (restart) {
      if (restart.attemptsLost) sim.pending.length = 0;
      loop.resume(restart.api, loop.saveSlots(), restart.attemptsLost);
      sim.trace.push({ t: clock.now, kind: "note", text: restart.note });
    }
    const due = loop.pass();
    if (loop.fault !== 0) throw new Error(`the loop stopped: ${nameOf(AbiError, loop.fault)}`);
    if (options.passNote)
      sim.trace.push({ t: clock.now, kind: "note", text: options.passNote(loop.api, due) });
    if (loop.live > 0) clock.advance(sim.wait(due));
  }
  return sim.trace;
}
