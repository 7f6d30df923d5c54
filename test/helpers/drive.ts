// Drives an instance on from a tick the way a main loop would (poll, report, ended,
// release, begin) and records every result, with ticks relative to where it started, so
// two instances can be compared even when their tick counters stand apart.
import { Counter, Outcome } from "../../host/library/src/generated/abi.js";
import type { TickRetryApi } from "../../host/library/src/tickretry.js";
import { tickAfter, ticksUntil } from "../../host/library/src/ticks.js";

/** Every result of 80 passes from `start`, for the handles given and those it meets. */
export function drive(api: TickRetryApi, handles: readonly number[], start: number): number[] {
  const out: number[] = [];
  const known = new Set(handles);
  const rel = (t: number) => ticksUntil(start, t) >>> 0;
  for (let k = 1; k <= 80; k++) {
    const now = tickAfter(start, k * 173);
    out.push(api.nextDue(now));
    for (let h = api.poll(now); h >= 0; h = api.poll(now)) {
      known.add(h);
      const outcome = [Outcome.TRANSIENT, Outcome.SUCCESS, Outcome.AMBIGUOUS, Outcome.THROTTLED][k % 4];
      out.push(h, api.attempt(h), api.operationId(h), rel(api.attemptDeadline(h)));
      out.push(api.report(h, api.attempt(h), outcome, k % 5 === 0 ? 400 : 0, tickAfter(now, 7)));
    }
    for (let h = api.ended(now); h >= 0; h = api.ended(now)) out.push(h, api.endReason(h), api.release(h));
    if (k % 9 === 0) known.add(api.begin(k % 2 ? 0 : 3, now));
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
