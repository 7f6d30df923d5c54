// Drives an instance on from a tick through the main loop (host/library/src/loop.ts), one
// pass every 173 ticks, each attempt answered at the next pass and a new operation begun
// every ninth, and records every result, with ticks relative to where it started, so two
// instances can be compared even when their tick counters stand apart.
import { Counter, Outcome } from "../../host/library/src/generated/abi.js";
import { Loop, type AttemptAnswer } from "../../host/library/src/loop.js";
import type { TickRetryApi } from "../../host/library/src/tickretry.js";
import { tickAfter, ticksUntil } from "../../host/library/src/ticks.js";

const PASSES = 80;

/** Every result of 80 passes from `start`, for the handles given and those it meets. */
export function drive(api: TickRetryApi, handles: readonly number[], start: number): number[] {
  const out: number[] = [];
  const known = new Set(handles);
  const rel = (t: number) => ticksUntil(start, t) >>> 0;
  let k = 0;
  const answers: AttemptAnswer[] = [];
  const loop = new Loop(api, {
    ticks: () => tickAfter(start, k * 173),
    collect: () => answers.shift(),
    beginDue(now) {
      if (k % 9 === 0) known.add(loop.begin(k % 2 ? 0 : 3, now));
    },
    startAttempt(handle, attempt) {
      const outcome = [Outcome.TRANSIENT, Outcome.SUCCESS, Outcome.AMBIGUOUS, Outcome.THROTTLED][k % 4];
      answers.push({ handle, attempt, outcome, retryAfter: k % 5 === 0 ? 400 : 0 });
    },
    onEvent(e) {
      if ("handle" in e) known.add(e.handle);
      if (e.kind === "start")
        out.push(e.handle, e.attempt, e.operationId, rel(api.attemptDeadline(e.handle)));
      else if (e.kind === "report") out.push(e.result);
      else if (e.kind === "timeout") out.push(e.attempt);
      else if (e.kind === "end") out.push(e.handle, e.reason);
    },
  });
  for (k = 1; k <= PASSES; k++) {
    out.push(loop.pass(), loop.fault);
    for (const h of known) {
      out.push(api.state(h), api.attempt(h), api.lastOutcome(h), api.opFlags(h));
      // A dead handle's tick queries answer 0, which is no tick to make relative.
      if (api.slot(h) >= 0)
        out.push(rel(api.nextAttemptAt(h)), rel(api.attemptDeadline(h)), rel(api.deadline(h)));
    }
    out.push(api.tokens());
  }
  for (let id = 0; id < Counter.COUNT; id++) out.push(api.counter(id));
  return out;
}
