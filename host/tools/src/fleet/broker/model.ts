// The broker of the broker-restart experiment: it serves connect handshakes and publishes
// from one CPU budget per 100 ms bucket. A handshake (TLS, CONNECT/CONNACK) costs far more
// than a publish; a handshake the bucket has no CPU left for is dropped, and the device
// sees it fail at its handshake timeout. While the broker is restarting it refuses every
// connect at once (TCP RST).

export interface BrokerParams {
  /** Broker CPU per connect handshake, ms (TLS dominates). */
  connectCostMs: number;
  /** Broker CPU per publish, ms. */
  publishCostMs: number;
  /** CPU ms the broker has per 100 ms bucket (100 per core). */
  cpuPerBucketMs: number;
  /** Every connected device publishes every this many ms. */
  publishEveryMs: number;
  /** Round trip of a refused connect. */
  refuseMs: number;
  /** A handshake the broker served takes this long. */
  handshakeMs: number;
  /** A handshake the broker dropped fails after this long (the client's timeout). */
  handshakeTimeoutMs: number;
}

export const DEFAULT_BROKER: BrokerParams = {
  connectCostMs: 20,
  publishCostMs: 0.2,
  cpuPerBucketMs: 100,
  publishEveryMs: 5000,
  refuseMs: 20,
  handshakeMs: 150,
  handshakeTimeoutMs: 2000,
};

export const BUCKET_MS = 100;

/** What a connect attempt leads to, and when the device learns it. */
export interface ConnectAnswer {
  ok: boolean;
  atMs: number;
}

export class Broker {
  /** CPU already spent per bucket; connect attempts per bucket. */
  private readonly spent = new Map<number, number>();
  readonly attempts = new Map<number, number>();
  /** Buckets in which some handshake was dropped for want of CPU. */
  readonly overloaded = new Set<number>();

  constructor(
    readonly params: BrokerParams,
    private readonly downFromMs: number,
    private readonly downUntilMs: number,
  ) {}

  isDown(t: number): boolean {
    return t >= this.downFromMs && t < this.downUntilMs;
  }

  /** A device sends a connect at `t` while `connected` devices publish. */
  connect(t: number, connected: number): ConnectAnswer {
    const bucket = Math.floor(t / BUCKET_MS);
    this.attempts.set(bucket, (this.attempts.get(bucket) ?? 0) + 1);
    const p = this.params;
    if (this.isDown(t)) return { ok: false, atMs: t + p.refuseMs };
    // The bucket's publishes come first: the CPU they take is charged on its first connect.
    const publishes = (connected * p.publishCostMs * BUCKET_MS) / p.publishEveryMs;
    const spent = this.spent.get(bucket) ?? publishes;
    if (spent + p.connectCostMs > p.cpuPerBucketMs) {
      this.overloaded.add(bucket);
      return { ok: false, atMs: t + p.handshakeTimeoutMs };
    }
    this.spent.set(bucket, spent + p.connectCostMs);
    return { ok: true, atMs: t + p.handshakeMs };
  }
}
