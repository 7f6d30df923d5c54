// The device's recent events, for the page's live timeline: a ring of the last EVENTS
// begins, attempt starts, answers, timeouts and ends, and the boots and sleeps between
// them, each with a sequence number so the page can merge what it polls without counting
// anything twice, and the RTC's reading, the clock the page places them on: the tick
// starts again at every boot, the RTC runs on through reboots and sleeps.

/** Events kept; at an upload every 3 s this covers well over a minute. */
export const EVENTS = 128;

export type EventKind = "begin" | "start" | "answer" | "timeout" | "end" | "boot" | "sleep";

export interface DeviceEvent {
  seq: number;
  /** The tick it happened at (this boot's count). */
  t: number;
  /** The RTC's reading then, ms since the epoch. */
  wallMs: number;
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

  /** wallMs: the device's RTC. */
  constructor(private readonly wallMs: () => number) {}

  add(
    t: number,
    kind: EventKind,
    operationId: number,
    attempt: number,
    outcome = "NONE",
    endReason = "NONE",
  ): number {
    this.ring.push({
      seq: ++this.seq,
      t,
      wallMs: this.wallMs(),
      kind,
      operationId,
      attempt,
      outcome,
      endReason,
    });
    if (this.ring.length > EVENTS) this.ring.shift();
    return this.seq;
  }

  /** Oldest first. */
  list(): DeviceEvent[] {
    return this.ring.slice();
  }

  /** The newest event's seq (0: none yet). */
  get newest(): number {
    return this.seq;
  }
}
