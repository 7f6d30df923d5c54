// The device's recent events, for the page's live timeline: a ring of the last EVENTS
// begins, attempt starts, answers, timeouts and ends, each with a sequence number so the
// page can merge what it polls without counting anything twice.

/** Events kept; at an upload every 3 s this covers well over a minute. */
export const EVENTS = 128;

export type EventKind = "begin" | "start" | "answer" | "timeout" | "end";

export interface DeviceEvent {
  seq: number;
  /** The tick it happened at. */
  t: number;
  kind: EventKind;
  operationId: number;
  attempt: number;
  /** answer: the outcome's name; otherwise "NONE". */
  outcome: string;
  /** end: the end reason's name; otherwise "NONE". */
  endReason: string;
}

export class EventLog {
  private readonly ring: DeviceEvent[] = [];
  private seq = 0;

  add(
    t: number,
    kind: EventKind,
    operationId: number,
    attempt: number,
    outcome = "NONE",
    endReason = "NONE",
  ) {
    this.ring.push({ seq: ++this.seq, t, kind, operationId, attempt, outcome, endReason });
    if (this.ring.length > EVENTS) this.ring.shift();
  }

  /** Oldest first. */
  list(): DeviceEvent[] {
    return this.ring.slice();
  }
}
