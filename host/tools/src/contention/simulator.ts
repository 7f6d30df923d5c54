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
} from "tickretry";
import { EventQueue } from "../event-queue.js";
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

/** Runs `clients` clients under `strategy`; `seed` and `run` pick every random number. */
export function runContention(
  strategy: ContentionStrategy,
  clients: number,
  seed: number,
  run: number,
): ContentionRun {
  const runSeed = deriveSeed(seed, run, 0);
  const network = new Network(new Rng(deriveSeed(runSeed, -1, Stream.NETWORK)));
  const hostRng = new Rng(deriveSeed(runSeed, -1, Stream.HOST_WAIT));
  const uniform = () => hostRng.next();
  const events = new EventQueue();
  let sequence = 0;
  const at = (time: number, kind: number, client: number) => events.push(time, sequence++, kind, client);

  const apis = prepareInstances(clients);
  // Each client's counter wraps within the first second of the run (as the fleet's do).
  const offset = new Float64Array(clients);
  const handle = new Int32Array(clients);
  /** The time of the event a client's loop runs for, and the answer it brings. */
  const clientTime = new Float64Array(clients);
  const answer: (AttemptAnswer | undefined)[] = [];
  const versionRead = new Int32Array(clients);
  const writeOk = new Uint8Array(clients);
  /** The attempt whose read or write is on its way, or 0. */
  const inFlight = new Int32Array(clients);
  const lastWait = new Float64Array(clients);
  let version = 0;
  let calls = 0;
  let completionUs = 0;

  /** What the client's loop sees: its operation ends when its write succeeded (the attempt
   * has come back, so nothing is outstanding and the loop releases it at once). */
  const onEvent = (i: number, e: LoopEvent) => {
    if (e.kind === "end") {
      if (e.reason !== EndReason.SUCCEEDED) throw new Error(`client ${i}: ended ${e.reason}, not SUCCEEDED`);
      completionUs = clientTime[i];
    } else if (e.kind === "report" && e.result < 0) {
      throw new Error(`client ${i}: report refused: ${errorName(e.result)}`);
    }
  };
  const loops = apis.map(
    (api, i) =>
      new Loop(api, {
        ticks: () => tickAfter(offset[i], clientTime[i]),
        collect() {
          const brought = answer[i];
          answer[i] = undefined;
          return brought;
        },
        startAttempt(_handle, attempt) {
          inFlight[i] = attempt;
          at(clientTime[i] + network.delay(), Event.READ, i);
        },
        onEvent: (e) => onEvent(i, e),
      }),
  );
  for (let i = 0; i < clients; i++) {
    const api = apis[i];
    api.init(deriveSeed(runSeed, i, Stream.SEED_LO), deriveSeed(runSeed, i, Stream.SEED_HI));
    configure(api, `strategy ${strategy.name}`, POLICY_ID, strategy.policy);
    offset[i] = tickAfter(0, -(new Rng(deriveSeed(runSeed, i, Stream.CLOCK)).nextU32() % 1_000_000));
    handle[i] = loops[i].begin(POLICY_ID, offset[i]);
    if (handle[i] < 0) throw new Error(`client ${i}: begin refused: ${handle[i]}`);
  }

  /** A pass of the client's loop (host/library/src/loop.ts) at `time`, bringing `brought`:
   * it reports the answer, starts the attempt if it is due (a read), else sleeps until it
   * is. No message is lost, so while an attempt is on its way the client sleeps until its
   * answer: the attempt's timeout, the only other thing due, is never reached. */
  const pass = (i: number, time: number, brought?: AttemptAnswer) => {
    clientTime[i] = time;
    answer[i] = brought;
    const due = loops[i].pass();
    if (loops[i].fault !== 0) throw new Error(`client ${i}: the loop stopped: ${errorName(loops[i].fault)}`);
    if (inFlight[i] === 0 && due !== NextDue.IDLE) at(time + due, Event.WAKE, i);
  };

  for (let i = 0; i < clients; i++) pass(i, 0);
  const popped = events.popped;
  while (events.pop()) {
    const { time, arg: i } = popped;
    switch (popped.kind) {
      case Event.READ:
        versionRead[i] = version;
        at(time + network.delay(), Event.READ_REPLY, i);
        break;
      case Event.READ_REPLY:
        at(time + network.delay(), Event.WRITE, i);
        break;
      case Event.WRITE:
        calls++;
        writeOk[i] = versionRead[i] === version ? 1 : 0;
        if (writeOk[i]) version++;
        at(time + network.delay(), Event.WRITE_REPLY, i);
        break;
      case Event.WRITE_REPLY: {
        let retryAfter = 0;
        if (!writeOk[i] && strategy.hostWait)
          retryAfter = lastWait[i] = strategy.hostWait(lastWait[i], uniform);
        const outcome = writeOk[i] ? Outcome.SUCCESS : Outcome.TRANSIENT;
        const attempt = inFlight[i];
        inFlight[i] = 0;
        pass(i, time, { handle: handle[i], attempt, outcome, retryAfter });
        break;
      }
      case Event.WAKE:
        pass(i, time);
        break;
    }
  }
  if (version !== clients) throw new Error(`${version} of ${clients} clients succeeded`);
  return { calls, completionUs };
}
