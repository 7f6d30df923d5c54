// A discrete-event simulator's queue: events ordered by (time, tie), kept in parallel typed
// arrays so that pushing and popping allocate nothing. The kind of an event is a small number
// each simulator defines (fleet/events.ts). Most events go to a calendar of one bucket per ms
// (event-calendar.ts: O(1), near in memory), the others to a binary min-heap (O(log n)).
// Popping takes the earlier of the heap's top and the calendar's first event, so the order
// is the heap's own while no two events have the same (time, tie): each simulator's ties
// are unique.
import { Calendar, before } from "./event-calendar.js";

export class EventQueue {
  private time = new Float64Array(1024);
  private tie = new Float64Array(1024);
  private kinds = new Uint8Array(1024);
  private args = new Int32Array(1024);
  private count = 0;

  private readonly calendar = new Calendar();

  /** Fields of the event the last pop() took; read them before the next pop. */
  popped = { time: 0, kind: 0, arg: 0 };

  get size(): number {
    return this.count + this.calendar.size;
  }

  /** Adds an event; among events at the same time the smaller tie goes first. */
  push(time: number, tie: number, kind: number, arg: number): void {
    if (this.calendar.push(time, tie, kind, arg)) return;
    if (this.count === this.time.length) this.grow();
    let i = this.count++;
    // Sift up: move parents down until the new entry's place is found.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(time, tie, this.time[parent], this.tie[parent])) break;
      this.move(parent, i);
      i = parent;
    }
    this.put(i, time, tie, kind, arg);
  }

  /** The earliest event's time; Infinity when the queue is empty. */
  peekTime(): number {
    const e = this.fromCalendar();
    if (e >= 0) return this.calendar.timeOf(e);
    return this.count === 0 ? Infinity : this.time[0];
  }

  /** Takes the earliest event into `popped`; false when the queue is empty. */
  pop(): boolean {
    const e = this.fromCalendar();
    if (e >= 0) {
      this.calendar.shift(e, this.popped);
      this.calendar.advance(this.popped.time);
      return true;
    }
    if (this.count === 0) return false;
    this.popped.time = this.time[0];
    this.popped.kind = this.kinds[0];
    this.popped.arg = this.args[0];
    this.calendar.advance(this.popped.time);
    const last = --this.count;
    if (last === 0) return true;
    const time = this.time[last];
    const tie = this.tie[last];
    const kind = this.kinds[last];
    const arg = this.args[last];
    // Sift down the former last entry from the root.
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= last) break;
      const right = child + 1;
      if (right < last && before(this.time[right], this.tie[right], this.time[child], this.tie[child])) {
        child = right;
      }
      if (!before(this.time[child], this.tie[child], time, tie)) break;
      this.move(child, i);
      i = child;
    }
    this.put(i, time, tie, kind, arg);
    return true;
  }

  /** The event the next pop takes unless an earlier one is pushed or the heap's top comes
   * first, into `next`; false when the calendar knows of none. A simulator may start reading
   * what that event will need while it runs this one. */
  upcoming(next: { kind: number; arg: number }): boolean {
    const e = this.calendar.upcoming();
    if (e < 0) return false;
    next.kind = this.calendar.kindOf(e);
    next.arg = this.calendar.argOf(e);
    return true;
  }

  /** The calendar's first event when it comes before the heap's top, else -1. */
  private fromCalendar(): number {
    const e = this.calendar.earliest();
    if (e < 0 || this.count === 0) return e;
    const c = this.calendar;
    return before(c.timeOf(e), c.tieOf(e), this.time[0], this.tie[0]) ? e : -1;
  }

  private put(i: number, time: number, tie: number, kind: number, arg: number): void {
    this.time[i] = time;
    this.tie[i] = tie;
    this.kinds[i] = kind;
    this.args[i] = arg;
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from];
    this.tie[to] = this.tie[from];
    this.kinds[to] = this.kinds[from];
    this.args[to] = this.args[from];
  }

  private grow(): void {
    const n = this.time.length * 2;
    const time = new Float64Array(n);
    const tie = new Float64Array(n);
    const kinds = new Uint8Array(n);
    const args = new Int32Array(n);
    time.set(this.time);
    tie.set(this.tie);
    kinds.set(this.kinds);
    args.set(this.args);
    this.time = time;
    this.tie = tie;
    this.kinds = kinds;
    this.args = args;
  }
}
