// One run of the contention experiment in virtual time (1 tick = 1 µs): N clients, each
// with its own module instance, update one shared row exactly once by optimistic
// concurrency. A client's operation is one tickretry operation; each attempt reads the
// row's version and then writes with it; the write succeeds only if the version is
// unchanged (then it increments), and a refused write is reported TRANSIENT, so the
// module schedules the next attempt by the policy. Every message takes |Normal(10 ms,
// 2 ms)| on the network; all clients begin at time 0.
import {
  EndReason,
  Loop,
  NextDue,
  Outcome,
  configure,
  errorName,
  tickAfter,
  type AttemptAnswer,
  type LoopEvent,
  type TickRetryApi,
} from "tickretry";
import { EventQueue } from "../event-queue.js";
import { VirtualTimeHal } from "../virtual-hal.js";
import { deriveSeed, Rng } from "../random.js";
import { prepareInstances } from "../fleet/simulator.js";
import { POLICY_ID } from "../fleet/strategies.js";
import { TICKS_PER_MS, type ContentionStrategy } from "./strategies.js";

const Event = {
  /** A client's read request reaches the row. */
  READ: 0,
  /** The version read reaches the client, which sends its write. */
  READ_REPLY: 1,
  /** A client's write request reaches the row. */
  WRITE: 2,
  /** The write's answer reaches the client, which reports it. */
  WRITE_REPLY: 3,
  /** The client's module has a retry due. */
  WAKE: 4,
} as const;

/** Streams of deriveSeed, one per purpose. */
const Stream = { NETWORK: 1, SEED_LO: 2, SEED_HI: 3, CLOCK: 4, HOST_WAIT: 5 } as const;

const NETWORK_MEAN_US = 10 * TICKS_PER_MS;
const NETWORK_SD_US = 2 * TICKS_PER_MS;

export interface ContentionRun {
  /** Writes that reached the row (the published measure of work). */
  calls: number;
  /** When the last client learnt that its write succeeded, in µs. */
  completionUs: number;
}

/** |Normal(mean, sd)| in whole µs, by Box-Muller (one draw of a pair kept for the next). */
class Network {
  private spare = NaN;
  constructor(private readonly rng: Rng) {}

  delay(): number {
    let z = this.spare;
    if (Number.isNaN(z)) {
      const r = Math.sqrt(-2 * Math.log(1 - this.rng.next()));
      const a = 2 * Math.PI * this.rng.next();
      z = r * Math.cos(a);
      this.spare = r * Math.sin(a);
    } else {
      this.spare = NaN;
    }
    return Math.round(Math.abs(NETWORK_MEAN_US + NETWORK_SD_US * z));
  }
}

/** What the clients share: the network, the event queue, the row and the tallies. */
class Row {
  version = 0;
  /** Writes that reached the row. */
  calls = 0;
  completionUs = 0;
  readonly events = new EventQueue();
  private sequence = 0;
  constructor(readonly network: Network) {}

  /** An event `kind` for `client` at `time`; ties go in the order they were set. */
  at(time: number, kind: number, client: number): void {
    this.events.push(time, this.sequence++, kind, client);
  }
}

/** One client: its own module instance and main loop (host/library/src/loop.ts), with a
 * HAL over the run's virtual time. */
class Client extends VirtualTimeHal {
  readonly loop: Loop;
  readonly handle: number;
  versionRead = 0;
  writeOk = false;
  /** The attempt whose read or write is on its way, or 0. */
  inFlight = 0;
  lastWait = 0;

  constructor(
    readonly index: number,
    api: TickRetryApi,
    /** This client's tick at time 0: its counter wraps within the first second (as the fleet's do). */
    offset: number,
    private readonly row: Row,
  ) {
    super(offset);
    this.loop = new Loop(api, this);
    this.handle = this.loop.begin(POLICY_ID, offset);
    if (this.handle < 0) throw new Error(`client ${index}: begin refused: ${this.handle}`);
  }

  /** A pass of the loop at `time`, bringing `brought`: it reports the answer, starts the
   * attempt if it is due (a read), else sleeps until it is. No message is lost, so while an
   * attempt is on its way the client sleeps until its answer: the attempt's timeout, the
   * only other thing due, is never reached. */
  pass(time: number, brought?: AttemptAnswer): void {
    this.time = time;
    this.answer = brought;
    const due = this.loop.pass();
    if (this.loop.fault !== 0)
      throw new Error(`client ${this.index}: the loop stopped: ${errorName(this.loop.fault)}`);
    if (this.inFlight === 0 && due !== NextDue.IDLE) this.row.at(time + due, Event.WAKE, this.index);
  }

  startAttempt(_handle: number, attempt: number): void {
    this.inFlight = attempt;
    this.row.at(this.time + this.row.network.delay(), Event.READ, this.index);
  }

  /** The operation ends when its write succeeded (the attempt has come back, so nothing is
   * outstanding and the loop releases it at once). */
  onEvent(e: LoopEvent): void {
    if (e.kind === "end") {
      if (e.reason !== EndReason.SUCCEEDED)
        throw new Error(`client ${this.index}: ended ${e.reason}, not SUCCEEDED`);
      this.row.completionUs = this.time;
    } else if (e.kind === "report" && e.result < 0) {
      throw new Error(`client ${this.index}: report refused: ${errorName(e.result)}`);
    }
  }
}

/** Runs `clients` clients under `strategy`; `seed` and `run` pick every random number. */
export function runContention(
  strategy: ContentionStrategy,
  clients: number,
  seed: number,
  run: number,
): ContentionRun {
  const runSeed = deriveSeed(seed, run, 0);
  const row = new Row(new Network(new Rng(deriveSeed(runSeed, -1, Stream.NETWORK))));
  const hostRng = new Rng(deriveSeed(runSeed, -1, Stream.HOST_WAIT));
  const uniform = () => hostRng.next();
  // The pool may hold more instances than this run has clients.
  const all = prepareInstances(clients)
    .slice(0, clients)
    .map((api, i) => {
      api.init(deriveSeed(runSeed, i, Stream.SEED_LO), deriveSeed(runSeed, i, Stream.SEED_HI));
      configure(api, `strategy ${strategy.name}`, POLICY_ID, strategy.policy);
      const offset = tickAfter(0, -(new Rng(deriveSeed(runSeed, i, Stream.CLOCK)).nextU32() % 1_000_000));
      return new Client(i, api, offset, row);
    });
  for (const c of all) c.pass(0);
  const popped = row.events.popped;
  while (row.events.pop()) {
    const c = all[popped.arg];
    const time = popped.time;
    switch (popped.kind) {
      case Event.READ:
        c.versionRead = row.version;
        row.at(time + row.network.delay(), Event.READ_REPLY, c.index);
        break;
      case Event.READ_REPLY:
        row.at(time + row.network.delay(), Event.WRITE, c.index);
        break;
      case Event.WRITE:
        row.calls++;
        c.writeOk = c.versionRead === row.version;
        if (c.writeOk) row.version++;
        row.at(time + row.network.delay(), Event.WRITE_REPLY, c.index);
        break;
      case Event.WRITE_REPLY: {
        let retryAfter = 0;
        if (!c.writeOk && strategy.hostWait) retryAfter = c.lastWait = strategy.hostWait(c.lastWait, uniform);
        const outcome = c.writeOk ? Outcome.SUCCESS : Outcome.TRANSIENT;
        const attempt = c.inFlight;
        c.inFlight = 0;
        c.pass(time, { handle: c.handle, attempt, outcome, retryAfter });
        break;
      }
      case Event.WAKE:
        c.pass(time);
        break;
    }
  }
  if (row.version !== clients) throw new Error(`${row.version} of ${clients} clients succeeded`);
  return { calls: row.calls, completionUs: row.completionUs };
}
