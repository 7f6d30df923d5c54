// The test upstream's dedup store, bounded: each Idempotency-Key with the body that ran
// under it, at most STORE_LIMIT_BYTES of keys and bodies in all and keys of at most
// KEY_LIMIT_BYTES. A full store refuses a new key (the client is told to come back)
// rather than forget an old one: forgetting would turn a late retry into a second upload,
// the very thing the store exists to catch.

/** Bytes of keys and bodies the store may hold. */
export const STORE_LIMIT_BYTES = 8 * 1024 * 1024;
/** The longest Idempotency-Key taken, bytes (the device's are a few digits). */
export const KEY_LIMIT_BYTES = 128;

export type Ran = "ran" | "replay" | "full";

export class DedupStore {
  private readonly bodies = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly limitBytes = STORE_LIMIT_BYTES) {}

  get size(): number {
    return this.bodies.size;
  }

  /** Runs the upload unless its key already ran ("replay") or the store is full ("full"). */
  run(key: string, body: string): Ran {
    if (this.bodies.has(key)) return "replay";
    const cost = Buffer.byteLength(key) + Buffer.byteLength(body);
    if (this.bytes + cost > this.limitBytes) return "full";
    this.bodies.set(key, body);
    this.bytes += cost;
    return "ran";
  }

  entries(): { key: string; body: string }[] {
    return [...this.bodies].map(([key, body]) => ({ key, body }));
  }
}
