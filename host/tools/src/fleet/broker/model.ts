// The broker of the broker-restart experiment (session 14's model; docs/fleet.md, A broker
// restart). Its CPU is fluid: the connected devices' publishes take their share of it
// continuously, and connect handshakes (TLS, CONNECT/CONNACK: far dearer than a publish)
// have the rest, one after another in the order they came, a handshake's CPU carrying over
// a 100 ms edge. A connect that finds the CPU busy waits in the accept queue, as on a real
// broker: mosquitto listens with a backlog of 100 (listen(sock, 100) in src/net.c,
// net__socket_listen). It is served if its handshake can complete within the client's
// handshake timeout; else the client gives up and sees that timeout. One arriving at a
// full queue is dropped (its SYN unanswered): the client sees the timeout too. While the
// broker is restarting it refuses every connect at once (TCP RST), and its return starts
// with an empty queue.
//
// Before session 14 each 100 ms bucket had its own 100 ms of CPU, whole handshakes only and
// the publishes charged first, and a connect finding its bucket spent was dropped at once
// (no queue): 4 handshakes a bucket where the broker serves 5, and a quarter of the
// buckets of any random stream of arrivals overloaded.

export interface BrokerParams {
  /** Broker CPU per connect handshake, ms (TLS dominates). */
  connectCostMs: number;
  /** Broker CPU per publish, ms. */
  publishCostMs: number;
  /** CPU ms the broker has per 100 ms (100 per core), shared as one fluid CPU. */
  cpuPerBucketMs: number;
  /** Every connected device publishes every this many ms. */
  publishEveryMs: number;
  /** Round trip of a refused connect. */
  refuseMs: number;
  /** A handshake takes this long from the broker taking it up to the client's CONNACK
   * (round trips and its CPU). */
  handshakeMs: number;
  /** The client gives up on a handshake not done this long after its connect. */
  handshakeTimeoutMs: number;
  /** Connects the accept queue holds while they wait for the CPU. */
  backlog: number;
}

export const DEFAULT_BROKER: BrokerParams = {
  connectCostMs: 20,
  publishCostMs: 0.2,
  cpuPerBucketMs: 100,
  publishEveryMs: 5000,
  refuseMs: 20,
  handshakeMs: 150,
  handshakeTimeoutMs: 2000,
  backlog: 100,
};

export const BUCKET_MS = 100;

/** What a connect attempt leads to, and when the device learns it. */
export interface ConnectAnswer {
  ok: boolean;
  /** The broker is up but did not serve the handshake in time (queued too long, or the
   * queue full): the device sees its timeout, not a refusal. */
  busy: boolean;
  atMs: number;
}

/** Its per-bucket records are arrays over the run's buckets: a million devices' connects
 * counted in a Map were a lookup and often a new entry each. */
export class Broker {
  /** Connect attempts per bucket. */
  readonly attempts: Uint32Array;
  /** 1 for a bucket in which some handshake was dropped: the queue full, or its client
   * gone (timed out) before the broker could serve it. */
  readonly overloaded: Uint8Array;
  /** The last connect's answer (connect fills it in): read it before the next connect. */
  readonly answer: ConnectAnswer = { ok: false, busy: false, atMs: 0 };
  /** When the CPU is done with every handshake taken so far. */
  private freeAt = 0;
  /** When the broker takes up each queued connect, in arrival order: a ring of `backlog`. */
  private readonly queue: Float64Array;
  private head = 0;
  private queued = 0;
  /** The queue is emptied once, at the first connect after the return. */
  private restarted = false;

  /** A broker down from `downFromMs` until `downUntilMs`, taking connects until `durationMs`. */
  constructor(
    readonly params: BrokerParams,
    private readonly downFromMs: number,
    private readonly downUntilMs: number,
    durationMs: number,
  ) {
    const buckets = Math.floor((durationMs + params.handshakeTimeoutMs) / BUCKET_MS) + 1;
    this.attempts = new Uint32Array(buckets);
    this.overloaded = new Uint8Array(buckets);
    this.queue = new Float64Array(Math.max(1, params.backlog));
  }

  /** A device sends a connect at `t` while `connected` devices publish: its answer in `answer`. */
  connect(t: number, connected: number): void {
    this.attempts[Math.floor(t / BUCKET_MS)]++;
    const p = this.params;
    if (t >= this.downFromMs && t < this.downUntilMs) return this.answers(false, false, t + p.refuseMs);
    if (t >= this.downUntilMs && !this.restarted) this.restart();
    this.dequeueUntil(t);
    const giveUp = t + p.handshakeTimeoutMs;
    if (this.queued >= p.backlog) return this.dropped(t, giveUp);
    const start = Math.max(t, this.freeAt);
    if (start > t) this.enqueue(start);
    // A handshake that cannot be done before the client gives up costs the broker nothing
    // (it holds its place in the queue until then); the devices learn in whole ms.
    const done = Math.ceil(start + p.handshakeMs);
    if (done > giveUp) return this.dropped(giveUp, giveUp);
    this.freeAt = start + handshakeWallMs(p, connected);
    this.answers(true, false, done);
  }

  private restart(): void {
    this.restarted = true;
    this.queued = 0;
    this.freeAt = this.downUntilMs;
  }

  /** The connects the broker has taken up by `t` leave the queue. */
  private dequeueUntil(t: number): void {
    const q = this.queue;
    while (this.queued > 0 && q[this.head] <= t) {
      this.head = (this.head + 1) % q.length;
      this.queued--;
    }
  }

  private enqueue(start: number): void {
    this.queue[(this.head + this.queued) % this.queue.length] = start;
    this.queued++;
  }

  /** A handshake the broker dropped `at` (a full queue: on arrival; else when its client
   * gives up): the client sees its timeout at `giveUp`. */
  private dropped(at: number, giveUp: number): void {
    this.overloaded[Math.floor(at / BUCKET_MS)] = 1;
    this.answers(false, true, giveUp);
  }

  private answers(ok: boolean, busy: boolean, atMs: number): void {
    this.answer.ok = ok;
    this.answer.busy = busy;
    this.answer.atMs = atMs;
  }
}

/** A handshake's CPU in wall ms: at the share of the CPU the publishes of `connected`
 * devices leave (Infinity: they take all of it). */
function handshakeWallMs(p: BrokerParams, connected: number): number {
  const publishes = (connected * p.publishCostMs * BUCKET_MS) / p.publishEveryMs;
  return (p.connectCostMs * BUCKET_MS) / Math.max(0, p.cpuPerBucketMs - publishes);
}

/**
 * The soonest 99% of `devices` can be connected again after the broker's return, ms: its
 * CPU busy with handshakes from the return on, one after another, and the last one's
 * device connected handshakeMs after the broker takes it up. Each handshake is charged
 * the fewest publishes it can meet: those of the devices connected when its connect came,
 * which came at most handshakeTimeoutMs - handshakeMs before it was taken up. No strategy
 * can beat it; docs/fleet.md draws it as the limit.
 */
export function reconnectFloorMs(p: BrokerParams, devices: number): number {
  const needed = Math.ceil(0.99 * devices);
  const starts = new Float64Array(needed);
  let connected = 0;
  for (let k = 1; k < needed; k++) {
    while (starts[connected] + p.handshakeTimeoutMs <= starts[k - 1]) connected++;
    starts[k] = starts[k - 1] + handshakeWallMs(p, connected);
  }
  return Math.ceil(starts[needed - 1] + p.handshakeMs);
}

/** The handshakes a second the broker serves beside the publishes of all `devices`. */
export function handshakesPerSecond(p: BrokerParams, devices: number): number {
  const publishes = (devices * p.publishCostMs * BUCKET_MS) / p.publishEveryMs;
  return ((p.cpuPerBucketMs - publishes) / p.connectCostMs) * (1000 / BUCKET_MS);
}
