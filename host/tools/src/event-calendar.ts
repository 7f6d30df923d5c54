// The calendar beside the event queue's heap: one bucket per whole ms over a window of
// WINDOW_MS from the clock, each bucket a FIFO of events in (time, tie) order, linked through
// one pool of typed arrays. Pushing and popping cost O(1) (finding the first bucket in use
// reads a bitmap, 32 buckets a word) and touch memory near the last events, where a heap of
// a million devices' wakes misses the cache at most of its levels.
// A bucket takes an event only when it comes after the bucket's last one, which it always
// does in a simulator whose times are whole ms and whose ties grow with every push (FIFO
// ties); the heap takes the rest (other ties, times before the clock or past the window).

/** Whole ms the calendar covers ahead of the clock: beyond it, events go to the heap. */
const WINDOW_MS = 1 << 14;
const MASK = WINDOW_MS - 1;
const NONE = -1;

/** (time, tie) comes before (otherTime, otherTie). */
export function before(time: number, tie: number, otherTime: number, otherTie: number): boolean {
  return time < otherTime || (time === otherTime && tie < otherTie);
}

export class Calendar {
  // The pool of entries; `next` links a bucket's entries, and the free ones.
  private time = new Float64Array(1024);
  private tie = new Float64Array(1024);
  private kinds = new Uint8Array(1024);
  private args = new Int32Array(1024);
  private next = new Int32Array(1024).fill(NONE);
  private free = 0;
  /** Per bucket (ms modulo WINDOW_MS), its first and last entry, or NONE. */
  private readonly heads = new Int32Array(WINDOW_MS).fill(NONE);
  private readonly tails = new Int32Array(WINDOW_MS).fill(NONE);
  /** Bit b of word b >> 5: bucket b holds an event. The search for the first bucket that
   * does skips 32 empty ones a step: a push before a far bucket, popped at once, would
   * otherwise have the next search walk to that far bucket one ms at a time again. */
  private readonly occupied = new Int32Array(WINDOW_MS >> 5);
  /** The window's first ms (the clock's, whole): no bucket holds an earlier event. */
  private start = 0;
  /** No bucket before this ms holds an event (a lower bound when none does). */
  private first = 0;
  size = 0;

  constructor() {
    for (let i = 0; i < this.next.length - 1; i++) this.next[i] = i + 1;
  }

  /** Takes the event when its bucket is in the window and it comes after the bucket's last. */
  push(time: number, tie: number, kind: number, arg: number): boolean {
    const ms = Math.floor(time);
    if (ms < this.start || ms >= this.start + WINDOW_MS) return false;
    const b = ms & MASK;
    const last = this.tails[b];
    if (last !== NONE && before(time, tie, this.time[last], this.tie[last])) return false;
    const e = this.take();
    this.time[e] = time;
    this.tie[e] = tie;
    this.kinds[e] = kind;
    this.args[e] = arg;
    this.next[e] = NONE;
    if (last === NONE) ((this.heads[b] = e), (this.occupied[b >> 5] |= 1 << (b & 31)));
    else this.next[last] = e;
    this.tails[b] = e;
    if (this.size++ === 0 || ms < this.first) this.first = ms;
    return true;
  }

  /** The earliest event's entry (the head of the first bucket that holds one), or NONE. */
  earliest(): number {
    if (this.size === 0) return NONE;
    let b = this.first & MASK;
    // The bits of this bucket and the ones after it in its word, then whole words.
    let bits = this.occupied[b >> 5] & (-1 << (b & 31));
    while (bits === 0) {
      b = (b + 32) & ~31 & MASK;
      bits = this.occupied[b >> 5];
    }
    const found = (b & ~31) | (31 - Math.clz32(bits & -bits));
    this.first += (found - (this.first & MASK)) & MASK;
    return this.heads[found];
  }

  timeOf(e: number): number {
    return this.time[e];
  }

  tieOf(e: number): number {
    return this.tie[e];
  }

  /** Removes entry `e`, the one earliest() gave, into `popped`. */
  shift(e: number, popped: { time: number; kind: number; arg: number }): void {
    const b = this.first & MASK;
    popped.time = this.time[e];
    popped.kind = this.kinds[e];
    popped.arg = this.args[e];
    this.heads[b] = this.next[e];
    if (this.heads[b] === NONE) ((this.tails[b] = NONE), (this.occupied[b >> 5] &= ~(1 << (b & 31))));
    this.next[e] = this.free;
    this.free = e;
    this.size--;
  }

  /** The clock reached `time`: the window moves up to it (never back). */
  advance(time: number): void {
    const ms = Math.floor(time);
    if (ms > this.start) this.start = ms;
    if (this.first < this.start) this.first = this.start;
  }

  /** A free entry (push counts it in `size` once it is filled), growing the pool when none is left. */
  private take(): number {
    if (this.size === this.next.length) this.grow();
    const e = this.free;
    this.free = this.next[e];
    return e;
  }

  private grow(): void {
    const n = this.next.length;
    const widen = <T extends Float64Array | Int32Array | Uint8Array>(a: T, b: T): T => (b.set(a), b);
    this.time = widen(this.time, new Float64Array(2 * n));
    this.tie = widen(this.tie, new Float64Array(2 * n));
    this.kinds = widen(this.kinds, new Uint8Array(2 * n));
    this.args = widen(this.args, new Int32Array(2 * n));
    this.next = widen(this.next, new Int32Array(2 * n));
    // Every entry was in use: the new half is the free list.
    for (let i = n; i < 2 * n - 1; i++) this.next[i] = i + 1;
    this.next[2 * n - 1] = NONE;
    this.free = n;
  }
}
