// The requests on their way, by id: who sent it, for which attempt, and the answer the
// dependency gave. One table of 32-byte entries (../entries.ts) that grows by doubling, so
// a send allocates nothing; ids are reused once an answer has been delivered, so the table
// grows with the requests in flight, not with the length of the run. The answer, arriving
// long after the send, finds a request's fields in one cache line.
import { DOUBLES, WORDS, growEntries } from "../entries.js";

/** The answer of a request still being held or served. */
export const PENDING = 0;

/** As words: the sending device, the operation's handle, the attempt, the device's boot
 * count (an answer to an earlier boot finds no connection), the HTTP status of the answer
 * (PENDING until the dependency answers); as a double (the last 8 bytes): when it was sent. */
const Words = { DEVICE: 0, HANDLE: 1, ATTEMPT: 2, EPOCH: 3, STATUS: 4 } as const;
const SENT_AT = 3;

export class RequestTable {
  private words = new Int32Array(0);
  private doubles = new Float64Array(0);
  private capacity = 0;
  /** Ids handed out so far; ids below it that were released wait in `free`. */
  private count = 0;
  private free = new Int32Array(0);
  private freeCount = 0;

  constructor() {
    this.grow();
  }

  /** Records a request and returns its id. */
  add(device: number, epoch: number, handle: number, attempt: number, sentAt: number): number {
    let id: number;
    if (this.freeCount > 0) {
      id = this.free[--this.freeCount];
    } else {
      if (this.count === this.capacity) this.grow();
      id = this.count++;
    }
    const w = id * WORDS;
    this.words[w + Words.DEVICE] = device;
    this.words[w + Words.HANDLE] = handle;
    this.words[w + Words.ATTEMPT] = attempt;
    this.words[w + Words.EPOCH] = epoch;
    this.words[w + Words.STATUS] = PENDING;
    this.doubles[id * DOUBLES + SENT_AT] = sentAt;
    return id;
  }

  device(id: number): number {
    return this.words[id * WORDS + Words.DEVICE];
  }

  handle(id: number): number {
    return this.words[id * WORDS + Words.HANDLE];
  }

  attempt(id: number): number {
    return this.words[id * WORDS + Words.ATTEMPT];
  }

  epoch(id: number): number {
    return this.words[id * WORDS + Words.EPOCH];
  }

  status(id: number): number {
    return this.words[id * WORDS + Words.STATUS];
  }

  sentAt(id: number): number {
    return this.doubles[id * DOUBLES + SENT_AT];
  }

  /** The dependency answered request `id` with HTTP `status`. */
  answer(id: number, status: number): void {
    this.words[id * WORDS + Words.STATUS] = status;
  }

  /** The answer to request `id` has been delivered: its id may be reused. */
  release(id: number): void {
    this.free[this.freeCount++] = id;
  }

  /** Doubles the table (to 1024 entries at first). */
  private grow(): void {
    ({ doubles: this.doubles, words: this.words, capacity: this.capacity } = growEntries(this.words));
    const free = new Int32Array(this.capacity);
    free.set(this.free);
    this.free = free;
  }
}
