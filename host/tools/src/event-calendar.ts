// The calendar beside the event queue's heap: one bucket per whole ms over a window of
// WINDOW_MS from the clock, each bucket a FIFO of events in (time, tie) order, linked through
// one pool of typed arrays. Pushing and popping cost O(1) (finding the first bucket in use
// reads a bitmap, 32 buckets a word) and touch memory near the last events, where a heap of
// a million devices' wakes misses the cache at most of its levels.
// A bucket takes an event only when it comes after the bucket's last one, which it always
// does in a simulator whose times are whole ms and whose ties grow with every push (FIFO
// ties); the heap takes the rest (other ties, times before the clock or past the window).

import { DOUBLES, WORDS, growEntries } from "./entries.js";

/** Whole ms the calendar covers ahead of the clock: beyond it, events go to the heap. */
const WINDOW_MS = 1 << 14;
const MASK = WINDOW_MS - 1;
const NONE = -1;

/** (time, tie) comes before (otherTime, otherTie). */
export function before(time: number, tie: number, otherTime: number, otherTie: number): boolean {
  return time < otherTime || (time === otherTime && tie < otherTie);
}

/** An entry of the pool (entries.ts), as doubles: its time and tie; as words: its kind, its
 * argument, and the next entry of its bucket (or of the free list). */
const Doubles = { TIME: 0, TIE: 1 } as const;
const Words = { KIND: 4, ARG: 5, NEXT: 6 } as const;

export class Calendar {
  // The pool of entries, one buffer seen as doubles and as words.
  private doubles = new Float64Array(0);
  private words = new Int32Array(0);
  private capacity = 0;
  private free = NONE;
  /** Per bucket (ms modulo WINDOW_MS), its first and last entry, or NONE. */
  private readonly heads = new Int32Array(WINDOW_MS).fill(NONE);
  private readonly tails = new Int32Array(WINDOW_MS).fill(NONE);
  /** Per bucket, its last entry's time and tie: a push compares against them without
   * reading that entry, pushed long before and cold by now. */
  private readonly tailTimes = new Float64Array(WINDOW_MS);
  private readonly tailTies = new Float64Array(WINDOW_MS);
  /** Bit b of word b >> 5: bucket b holds an event. The search for the first bucket that
   * does skips 32 empty ones a step: a push before a far bucket, popped at once, would
   * otherwise have the next search walk to that far bucket one ms at a time again. */
  private readonly occupied = new Int32Array(WINDOW_MS >> 5);
  /** The window's first ms (the clock's, whole): no bucket holds an earlier event. */
  private start = 0;
  /** No bucket before this ms holds an event (a lower bound when none does). */
  private first = 0;
  size = 0;
  /** What upcoming() read ahead, kept so that the read is not dropped. */
  private warmth = 0;

  constructor() {
    this.grow();
  }

  /** Takes the event when its bucket is in the window and it comes after the bucket's last. */
  push(time: number, tie: number, kind: number, arg: number): boolean {
    const ms = Math.floor(time);
    if (ms < this.start || ms >= this.start + WINDOW_MS) return false;
    const b = ms & MASK;
    const last = this.tails[b];
    if (last !== NONE && before(time, tie, this.tailTimes[b], this.tailTies[b])) return false;
    const e = this.take();
    const d = e * DOUBLES;
    const w = e * WORDS;
    this.doubles[d + Doubles.TIME] = time;
    this.doubles[d + Doubles.TIE] = tie;
    this.words[w + Words.KIND] = kind;
    this.words[w + Words.ARG] = arg;
    this.words[w + Words.NEXT] = NONE;
    if (last === NONE) ((this.heads[b] = e), (this.occupied[b >> 5] |= 1 << (b & 31)));
    else this.words[last * WORDS + Words.NEXT] = e;
    this.tails[b] = e;
    this.tailTimes[b] = time;
    this.tailTies[b] = tie;
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
    return this.doubles[e * DOUBLES + Doubles.TIME];
  }

  tieOf(e: number): number {
    return this.doubles[e * DOUBLES + Doubles.TIE];
  }

  /** Removes entry `e`, the one earliest() gave, into `popped`. */
  shift(e: number, popped: { time: number; kind: number; arg: number }): void {
    const b = this.first & MASK;
    const w = e * WORDS;
    popped.time = this.timeOf(e);
    popped.kind = this.words[w + Words.KIND];
    popped.arg = this.words[w + Words.ARG];
    this.heads[b] = this.words[w + Words.NEXT];
    if (this.heads[b] === NONE) ((this.tails[b] = NONE), (this.occupied[b >> 5] &= ~(1 << (b & 31))));
    this.words[w + Words.NEXT] = this.free;
    this.free = e;
    this.size--;
  }

  /** The head of the bucket of `first` (after a shift, the entry after the one shifted),
   * which the next pop takes unless an earlier event comes before it; NONE when that bucket
   * is empty, even if a later one is not. Its own successor is read too, so that the pop
   * after next finds that entry in the cache: a bucket's entries were pushed at different
   * times, far apart in the pool, and at a million devices each is a cache miss. */
  upcoming(): number {
    const e = this.heads[this.first & MASK];
    if (e === NONE) return NONE;
    const after = this.words[e * WORDS + Words.NEXT];
    if (after !== NONE) this.warmth ^= this.words[after * WORDS + Words.KIND];
    return e;
  }

  kindOf(e: number): number {
    return this.words[e * WORDS + Words.KIND];
  }

  argOf(e: number): number {
    return this.words[e * WORDS + Words.ARG];
  }

  /** The clock reached `time`: the window moves up to it (never back). */
  advance(time: number): void {
    const ms = Math.floor(time);
    if (ms > this.start) this.start = ms;
    if (this.first < this.start) this.first = this.start;
  }

  /** A free entry (push counts it in `size` once it is filled), growing the pool when none is left. */
  private take(): number {
    if (this.size === this.capacity) this.grow();
    const e = this.free;
    this.free = this.words[e * WORDS + Words.NEXT];
    return e;
  }

  /** Doubles the pool (to 1024 entries at first); called when every entry is in use, so the
   * new ones are the free list. */
  private grow(): void {
    const n = this.capacity;
    ({ doubles: this.doubles, words: this.words, capacity: this.capacity } = growEntries(this.words));
    const capacity = this.capacity;
    for (let e = n; e < capacity; e++) this.words[e * WORDS + Words.NEXT] = e + 1 < capacity ? e + 1 : NONE;
    this.free = n;
  }
}
