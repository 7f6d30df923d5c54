// A discrete-event simulator's queue: a binary min-heap ordered by (time, tie), kept in
// parallel typed arrays so that pushing and popping allocate nothing. Every operation is
// O(log n). The kind of an event is a small number each simulator defines (fleet/events.ts).
// Kinds that are mostly pushed in order (an answer at the current time, a service done a
// fixed time later) may each have a lane beside the heap: a FIFO that takes such an event
// in O(1) while it comes after the lane's last one, and the heap takes the rest. Of a
// million devices' two million events, the heap then holds only the wakes, and a deep
// heap misses the cache at most of its levels. Popping takes the earliest of the heap's
// top and the lanes' heads, so the order is the heap's own while no two events have the
// same (time, tie): each simulator's ties are unique.

/** (time, tie) comes before (otherTime, otherTie). */
function before(time: number, tie: number, otherTime: number, otherTie: number): boolean {
  return time < otherTime || (time === otherTime && tie < otherTie);
}

/** Events of one kind in (time, tie) order, in a ring of typed arrays that doubles when full. */
class Lane {
  time = new Float64Array(1024);
  tie = new Float64Array(1024);
  args = new Int32Array(1024);
  head = 0;
  length = 0;

  constructor(readonly kind: number) {}

  /** Whether (time, tie) comes after (or at) the lane's last event. */
  accepts(time: number, tie: number): boolean {
    if (this.length === 0) return true;
    const last = (this.head + this.length - 1) & (this.time.length - 1);
    return !before(time, tie, this.time[last], this.tie[last]);
  }

  push(time: number, tie: number, arg: number): void {
    if (this.length === this.time.length) this.grow();
    const at = (this.head + this.length++) & (this.time.length - 1);
    this.time[at] = time;
    this.tie[at] = tie;
    this.args[at] = arg;
  }

  /** Moves the head into `popped`. */
  shift(popped: EventQueue["popped"]): void {
    popped.time = this.time[this.head];
    popped.kind = this.kind;
    popped.arg = this.args[this.head];
    this.head = (this.head + 1) & (this.time.length - 1);
    this.length--;
  }

  private grow(): void {
    const n = this.time.length;
    const unroll = <T extends Float64Array | Int32Array>(a: T, b: T): T => {
      for (let i = 0; i < n; i++) b[i] = a[(this.head + i) & (n - 1)];
      return b;
    };
    this.time = unroll(this.time, new Float64Array(2 * n));
    this.tie = unroll(this.tie, new Float64Array(2 * n));
    this.args = unroll(this.args, new Int32Array(2 * n));
    this.head = 0;
  }
}

export class EventQueue {
  private time = new Float64Array(1024);
  private tie = new Float64Array(1024);
  private kinds = new Uint8Array(1024);
  private args = new Int32Array(1024);
  private count = 0;

  /** Per kind, its lane or undefined; and the lanes. */
  private readonly laneOf: (Lane | undefined)[] = [];
  private readonly lanes: Lane[] = [];

  /** Fields of the event the last pop() took; read them before the next pop. */
  popped = { time: 0, kind: 0, arg: 0 };

  /** `laned`: the kinds that get a lane (above); none by default. */
  constructor(laned: readonly number[] = []) {
    for (const kind of laned) this.lanes.push((this.laneOf[kind] = new Lane(kind)));
  }

  get size(): number {
    let n = this.count;
    for (const lane of this.lanes) n += lane.length;
    return n;
  }

  /** Adds an event; among events at the same time the smaller tie goes first. */
  push(time: number, tie: number, kind: number, arg: number): void {
    const lane = this.laneOf[kind];
    if (lane !== undefined && lane.accepts(time, tie)) return lane.push(time, tie, arg);
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
    const lane = this.earliestLane();
    if (lane !== undefined) return lane.time[lane.head];
    return this.count === 0 ? Infinity : this.time[0];
  }

  /** Takes the earliest event into `popped`; false when the queue is empty. */
  pop(): boolean {
    const lane = this.earliestLane();
    if (lane !== undefined) {
      lane.shift(this.popped);
      return true;
    }
    if (this.count === 0) return false;
    this.popped.time = this.time[0];
    this.popped.kind = this.kinds[0];
    this.popped.arg = this.args[0];
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

  /** The lane whose head comes before the heap's top and every other lane's head, if any. */
  private earliestLane(): Lane | undefined {
    let earliest: Lane | undefined;
    let time = this.count === 0 ? Infinity : this.time[0];
    let tie = this.count === 0 ? 0 : this.tie[0];
    for (let i = 0; i < this.lanes.length; i++) {
      const lane = this.lanes[i];
      if (lane.length === 0 || !before(lane.time[lane.head], lane.tie[lane.head], time, tie)) continue;
      earliest = lane;
      time = lane.time[lane.head];
      tie = lane.tie[lane.head];
    }
    return earliest;
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
