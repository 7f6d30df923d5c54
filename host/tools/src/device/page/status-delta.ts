// /status.json after the page's first poll, the protocol the sketch's writer follows too
// (boards/app/status.c): a poll ?since=SEQ, SEQ the newest event seq the page
// holds, gets the tick, the events and ended operations after SEQ, and only the groups
// that changed at SEQ or after. The memo is one for every client: each group's last JSON
// and the newest seq when it last changed, so it keeps no client's state. A SEQ past the
// newest (a page that polled before a board's reboot, whose count starts again) or 0 gets
// everything. A live operation's waits and a session's up time move with the clock alone:
// they are compared as the tick they point at, and the page counts them on by the tick
// while their group is left out.
import type { DeviceStatus } from "../app/status.js";

/** A countdown (sign 1) or an up time (sign -1) as the tick it points at; null stays null. */
const pointAt = (now: number, ms: number | null, sign = 1) => (ms === null ? null : (now + sign * ms) >>> 0);

/** The group as compared: what only the passing of time moves, pinned to the tick. */
function pinned(key: string, value: unknown, now: number): unknown {
  if (key === "operations")
    return (value as DeviceStatus["operations"]).map((o) => ({
      ...o,
      nextAttemptInMs: pointAt(now, o.nextAttemptInMs),
      attemptTimeoutInMs: pointAt(now, o.attemptTimeoutInMs),
      deadlineInMs: pointAt(now, o.deadlineInMs),
    }));
  if (key === "sessions")
    return (value as DeviceStatus["sessions"]).map((v) => ({
      ...v,
      upForMs: pointAt(now, v.upForMs, -1),
      nextTryInMs: pointAt(now, v.nextTryInMs),
    }));
  return value;
}

/** Groups in every answer (the tick), or cut by seq (recent, events). */
const BY_SEQ = new Set(["tick", "recent", "events"]);

export class StatusMemo {
  private readonly groups = new Map<string, { json: string; changedAt: number }>();

  /** The answer to a poll since `since` of `status`, whose newest event is `newest` (0: none). */
  answer(status: DeviceStatus, newest: number, since: number): Record<string, unknown> {
    const after = since > newest ? 0 : since;
    const out: Record<string, unknown> = {
      tick: status.tick,
      recent: status.recent.filter((r) => r.seq > after),
      events: status.events.filter((e) => e.seq > after),
    };
    for (const [key, value] of Object.entries(status)) {
      if (BY_SEQ.has(key)) continue;
      const json = JSON.stringify(pinned(key, value, status.tick.now));
      let seen = this.groups.get(key);
      if (seen?.json !== json) this.groups.set(key, (seen = { json, changedAt: newest }));
      if (after === 0 || seen.changedAt >= after) out[key] = value;
    }
    return out;
  }
}
