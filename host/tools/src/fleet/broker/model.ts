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
  /** A handshake dropped for want of CPU: the device sees its timeout, not a refusal. */
  busy: boolean;
  atMs: number;
}

/** Its per-bucket records are arrays over the run's buckets: a million devices' connects
 * counted in a Map were a lookup and often a new entry each. */
export class Broker {
  /** CPU already spent per bucket; NaN until the bucket's first served handshake. */
  private readonly spent: Float64Array;
  /** Connect attempts per bucket. */
  readonly attempts: Uint32Array;
  /** 1 for a bucket in which some handshake was dropped for want of CPU. */
  readonly overloaded: Uint8Array;
  /** The last connect's answer (connect fills it in): read it before the next connect. */
  readonly answer: ConnectAnswer = { ok: false, busy: false, atMs: 0 };

  /** A broker down from `downFromMs` until `downUntilMs`, taking connects until `durationMs`. */
  constructor(
    readonly params: BrokerParams,
    private readonly downFromMs: number,
    private readonly downUntilMs: number,
    durationMs: number,
  ) {
    const buckets = Math.floor(durationMs / BUCKET_MS) + 1;
    this.spent = new Float64Array(buckets).fill(NaN);
    this.attempts = new Uint32Array(buckets);
    this.overloaded = new Uint8Array(buckets);
  }

  private isDown(t: number): boolean {
    return t >= this.downFromMs && t < this.downUntilMs;
  }

  /** A device sends a connect at `t` while `connected` devices publish: its answer in `answer`. */
  connect(t: number, connected: number): void {
    const bucket = Math.floor(t / BUCKET_MS);
    this.attempts[bucket]++;
    const p = this.params;
    if (this.isDown(t)) return this.answers(false, false, t + p.refuseMs);
    // The bucket's publishes come first: the CPU they take is charged on its first served
    // connect (a dropped one charges nothing, and the next connect counts them again).
    const publishes = (connected * p.publishCostMs * BUCKET_MS) / p.publishEveryMs;
    const spent = Number.isNaN(this.spent[bucket]) ? publishes : this.spent[bucket];
    if (spent + p.connectCostMs > p.cpuPerBucketMs) {
      this.overloaded[bucket] = 1;
      return this.answers(false, true, t + p.handshakeTimeoutMs);
    }
    this.spent[bucket] = spent + p.connectCostMs;
    this.answers(true, false, t + p.handshakeMs);
  }

  private answers(ok: boolean, busy: boolean, atMs: number): void {
    this.answer.ok = ok;
    this.answer.busy = busy;
    this.answer.atMs = atMs;
  }
}

/**
 * The soonest 99% of `devices` can be connected again after the broker's return, ms: the
 * broker serves whole handshakes, as many as its bucket's CPU holds (all of it in the
 * return's first bucket, when nothing is connected; after that beside the publishes of at
 * least one connected device, which leaves the 1,000-device broker 4 a bucket, not 5), and
 * a served one takes handshakeMs. No strategy can beat it; docs/fleet.md draws it as the
 * limit.
 */
export function reconnectFloorMs(p: BrokerParams, devices: number): number {
  const needed = Math.ceil(0.99 * devices);
  const first = Math.floor(p.cpuPerBucketMs / p.connectCostMs);
  const later = handshakesPerBucket(p);
  const buckets = needed <= first ? 1 : 1 + Math.ceil((needed - first) / later);
  return (buckets - 1) * BUCKET_MS + p.handshakeMs;
}

/** The handshakes a bucket holds once some device is connected: its CPU less one device's
 * publishes, in whole handshakes (the 1,000-device broker's 4). */
export function handshakesPerBucket(p: BrokerParams): number {
  const publishes = (p.publishCostMs * BUCKET_MS) / p.publishEveryMs;
  return Math.floor((p.cpuPerBucketMs - publishes) / p.connectCostMs);
}
