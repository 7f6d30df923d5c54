// The requests on their way, by id: who sent it, for which attempt, and the answer the
// dependency gave. Typed arrays that grow by doubling, so a send allocates nothing; ids
// are reused once an answer has been delivered, so the table grows with the requests in
// flight, not with the length of the run.

/** The answer of a request still being held or served. */
export const PENDING = 0;

export class RequestTable {
  device = new Int32Array(1024);
  handle = new Int32Array(1024);
  attempt = new Int32Array(1024);
  /** The sending device's boot count: an answer to an earlier boot finds no connection. */
  epoch = new Int32Array(1024);
  sentAt = new Float64Array(1024);
  /** HTTP status of the answer, PENDING until the dependency answers. */
  status = new Int16Array(1024);
  /** Ids handed out so far; ids below it that were released wait in `free`. */
  private count = 0;
  private free = new Int32Array(1024);
  private freeCount = 0;

  /** Records a request and returns its id. */
  add(device: number, epoch: number, handle: number, attempt: number, sentAt: number): number {
    let id: number;
    if (this.freeCount > 0) {
      id = this.free[--this.freeCount];
    } else {
      if (this.count === this.device.length) this.grow();
      id = this.count++;
    }
    this.device[id] = device;
    this.handle[id] = handle;
    this.attempt[id] = attempt;
    this.epoch[id] = epoch;
    this.sentAt[id] = sentAt;
    this.status[id] = PENDING;
    return id;
  }

  /** The answer to request `id` has been delivered: its id may be reused. */
  release(id: number): void {
    this.free[this.freeCount++] = id;
  }

  private grow(): void {
    const n = this.device.length * 2;
    const widen = <T extends Int32Array | Float64Array | Int16Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    this.device = widen(this.device, new Int32Array(n));
    this.handle = widen(this.handle, new Int32Array(n));
    this.attempt = widen(this.attempt, new Int32Array(n));
    this.epoch = widen(this.epoch, new Int32Array(n));
    this.sentAt = widen(this.sentAt, new Float64Array(n));
    this.status = widen(this.status, new Int16Array(n));
    this.free = widen(this.free, new Int32Array(n));
  }
}
