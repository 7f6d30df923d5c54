// The session glue: the loop's HAL, routed between the sessions (the broker connection,
// MQTT only) and the uploads. A session's connect attempt, answer and events go to it,
// everything else to the uploads; the gate holds readings in the queue while the broker is
// down (docs/device.md, MQTT). The state is written before any attempt is sent: an
// attempt whose state did not reach the store is not sent (the module times it out and
// retries; the next pass writes again).
import type { LoopEvent, LoopHal } from "tickretry";
import type { Running } from "../running.js";
import type { BrokerSession } from "./broker.js";
import type { Kept, KeptParts } from "./kept.js";
import type { Readings, Uploads } from "./readings.js";
import type { Requests } from "./requests.js";

/** The rooms a pass goes through, and what the composition answers. */
export interface PassRooms {
  running: Running;
  kept: Kept;
  readings: Readings;
  uploads: Uploads;
  requests: Requests;
  session?: BrokerSession;
  /** False once the device stopped: the pass begins nothing. */
  live(): boolean;
  /** What the state write takes from the other rooms. */
  parts(): KeptParts;
  /** Sees every loop event first (the application differential's trace). */
  onLoopEvent?: (e: LoopEvent) => void;
}

/** A reading begins only while the broker connection is up; until then it waits in the queue, spending no attempt, budget or deadline. */
function beginQueued(r: PassRooms, now: number): void {
  if (r.session !== undefined && !r.session.up) return;
  r.uploads.beginQueued(r.readings.queue, now);
}

/** Why the queue is full: the broker session not up, or every upload slot taken. */
function holding(r: PassRooms, now: number): string {
  if (r.session !== undefined && !r.session.up) return `broker session ${r.session.status(now).state}`;
  return "every upload slot taken";
}

export function loopHal(r: PassRooms): LoopHal {
  const { running, kept, readings, uploads, session } = r;
  return {
    ticks: () => running.tick.at(running.passMs),
    collect: () => session?.collect() ?? uploads.collect(),
    dropped: () => session?.dropped(),
    linkUp: () => session?.linkUp() ?? false,
    beginDue: (now) => {
      if (!r.live()) return;
      // A board claims its boot's epoch in NVS before its first pass (kept.c); here the
      // first pass's write does, so that the reading due at once is taken at once.
      if (!readings.epochWritten && kept.write(running, now, r.parts)) readings.written();
      session?.resume(now);
      readings.take(
        now,
        r.requests,
        () => beginQueued(r, now),
        () => holding(r, now),
      );
    },
    persist: (now) => {
      uploads.dropStale(now);
      session?.dropStale();
      kept.stored = kept.write(running, now, r.parts);
      if (kept.stored) readings.written();
    },
    startAttempt: (h, attempt, _id, now) => {
      if (!kept.stored) running.loop.abandon(h);
      else if (session?.owns(h)) session.start(attempt);
      else uploads.start(h, attempt, now);
    },
    onEvent: (e) => {
      r.onLoopEvent?.(e);
      if (!session?.sees(e)) uploads.onEvent(e);
    },
  };
}
