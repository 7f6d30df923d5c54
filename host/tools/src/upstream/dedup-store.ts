// The test upstream's dedup store, bounded: each Idempotency-Key with the body that ran
// under it, at most STORE_LIMIT_BYTES of keys and bodies in all and keys of at most
// KEY_LIMIT_BYTES. It is a ring: when a new upload does not fit, the oldest ones are
// evicted and counted. Refusing new keys instead (as it once did) failed every reading
// after about 6 days at the default rate; forgetting only the oldest keys costs a replay
// check for a retry that comes back after millions of newer uploads, and the count says
// how many keys that may be.

/** Bytes of keys and bodies the store may hold. */
export const STORE_LIMIT_BYTES = 8 * 1024 * 1024;
/** The longest Idempotency-Key taken, bytes (the device's are a few digits). */
export const KEY_LIMIT_BYTES = 128;

export type Ran = "ran" | "replay";

const costOf = (key: string, body: string) => Buffer.byteLength(key) + Buffer.byteLength(body);

export class DedupStore {
  /** In the order they ran: the first is the oldest, the next to be evicted. */
  private readonly bodies = new Map<string, string>();
  private bytes = 0;
  /** Uploads evicted to make room for newer ones. */
  evicted = 0;

  constructor(private readonly limitBytes = STORE_LIMIT_BYTES) {}

  get size(): number {
    return this.bodies.size;
  }

  /** Runs the upload unless its key already ran ("replay"), evicting the oldest ones it does not fit beside. */
  run(key: string, body: string): Ran {
    if (this.bodies.has(key)) return "replay";
    const cost = costOf(key, body);
    for (const [oldKey, oldBody] of this.bodies) {
      if (this.bytes + cost <= this.limitBytes) break;
      this.bodies.delete(oldKey);
      this.bytes -= costOf(oldKey, oldBody);
      this.evicted++;
    }
    this.bodies.set(key, body);
    this.bytes += cost;
    return "ran";
  }

  entries(): { key: string; body: string }[] {
    return [...this.bodies].map(([key, body]) => ({ key, body }));
  }
}
