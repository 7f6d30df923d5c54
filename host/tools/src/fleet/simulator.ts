// The discrete-event simulator: virtual time only (no sleeping, no wall clock), one event
// queue, N devices each running host/library/build/tickretry.wasm (by default as state blocks
// swapped through one instance: instances.ts), and the synthetic dependency. A run is a
// pure function of (settings, strategy, seed).
import { Counter, type TickRetryApi, tickAfter } from "tickretry";
import { Dependency, HTTP_OK } from "./dependency.js";
import { FleetDevices, type DeviceHost } from "./device.js";
import { EventQueue } from "../event-queue.js";
import { EventKind, PROGRESS_EVERY } from "./events.js";
import { StatePool, type Instances } from "./instances.js";
import { RunRecord } from "./metrics.js";
import { deriveSeed, Rng } from "../random.js";
import { RequestTable } from "./requests.js";
import { drawGap, drawPhase, type FleetSettings } from "./settings.js";
import { applyStrategy, type Strategy } from "./strategies.js";

export { prepareInstances } from "./instances.js";

/** Streams of deriveSeed, one per purpose, so that adding one never shifts another. */
const Stream = {
  SEED_LO: 1,
  SEED_HI: 2,
  GAP: 3,
  CLOCK: 4,
  TIES: 5,
  PHASE: 6,
  BOOT_SEED_LO: 7,
  BOOT_SEED_HI: 8,
} as const;

/** Called now and then with the share of virtual time simulated so far (0..1). */
export type Progress = (done: number) => void;

export function runFleet(
  settings: FleetSettings,
  strategy: Strategy,
  seed: number,
  progress?: Progress,
  instances: Instances = new StatePool(settings.devices),
): RunRecord {
  const run = new FleetRun(settings, strategy, seed, instances);
  run.start();
  run.drain(progress);
  return run.finish();
}

/** One run: its queue, its requests, its devices and what it records. */
class FleetRun {
  // Whole-ms times and FIFO ties (the default): every event goes to the queue's calendar.
  private readonly events = new EventQueue();
  private readonly requests = new RequestTable();
  readonly record = new RunRecord();
  private readonly tie: () => number;
  private readonly dependency: Dependency;
  private readonly devices: FleetDevices;
  /** How the devices space their operations: the upload interval or the think time. */
  private readonly gap: FleetSettings["interval"];
  /** Each device's counters in its last stored image: a restored instance starts from them. */
  private readonly storedCounters: Counted[] = [];
  /** What readAhead read, kept so that the reads are not dropped. */
  private warmth = 0;

  constructor(
    private readonly settings: FleetSettings,
    private readonly strategy: Strategy,
    private readonly seed: number,
    private readonly instances: Instances,
  ) {
    const tieRng = new Rng(deriveSeed(seed, -1, Stream.TIES));
    let sequence = 0;
    this.tie = settings.ties === "fifo" ? () => sequence++ : () => tieRng.nextU32();
    this.dependency = new Dependency(settings.dependency, {
      schedule: (time, kind, arg) => this.events.push(time, this.tie(), kind, arg),
      answered: (id, status, time) => {
        this.requests.answer(id, status);
        this.record.answer(time, status === HTTP_OK, this.requests.sentAt(id));
        this.events.push(time, this.tie(), EventKind.RESPONSE, id);
      },
    });
    this.gap = settings.arrivals === "open" ? settings.interval : settings.think;
    this.devices = new FleetDevices(this.deviceHost(this.gap));
  }

  /** Schedules the script and the power cut, makes every device and starts its loop. */
  start(): void {
    const { settings, seed, events } = this;
    settings.dependency.script.forEach((c, i) =>
      events.push(c.at, this.tie(), EventKind.DEPENDENCY_CHANGE, i),
    );
    if (settings.powerCut) {
      events.push(settings.powerCut.atMs, this.tie(), EventKind.POWER_CUT, 0);
      events.push(settings.powerCut.atMs + settings.powerCut.outageMs, this.tie(), EventKind.BOOT, 0);
    }
    for (let i = 0; i < settings.devices; i++) {
      const api = this.enter(i);
      api.init(deriveSeed(seed, i, Stream.SEED_LO), deriveSeed(seed, i, Stream.SEED_HI));
      applyStrategy(api, this.strategy);
      const phase = drawPhase(this.gap, new Rng(deriveSeed(seed, i, Stream.PHASE)));
      this.devices.start(i, clockOffset(settings, seed, i), deriveSeed(seed, i, Stream.GAP), phase);
    }
  }

  /** What the devices are given of the run around them. */
  private deviceHost(gap: FleetSettings["interval"]): DeviceHost {
    const { settings, record, events } = this;
    return {
      devices: settings.devices,
      durationMs: settings.durationMs,
      arrivals: settings.arrivals,
      persists: settings.powerCut !== undefined,
      enter: (i) => this.enter(i),
      stored: (i) => (this.storedCounters[i] = countersOf(this.instances.api(i))),
      restored: (i) => this.instances.restored(i),
      send: (i, epoch, handle, attempt, time) => {
        record.send(time, attempt > 1);
        this.dependency.arrive(this.requests.add(i, epoch, handle, attempt, time), time);
      },
      wakeAt: (i, time) => events.push(time, this.tie(), EventKind.WAKE, i),
      ended: (start, end, reason, pending) => record.operation(start, end, reason, pending),
      stale: () => record.staleResponses++,
      tableFull: () => record.tableFull++,
      gap: (rng) => drawGap(gap, rng),
    };
  }

  /** Device i's instance, holding its state: what every event of device i starts with. */
  private enter(i: number): TickRetryApi {
    this.instances.enter(i);
    return this.instances.api(i);
  }

  /** Runs every event in order, telling `progress` now and then how far it got. */
  drain(progress?: Progress): void {
    const { events, dependency, settings } = this;
    const popped = events.popped;
    const next = { kind: 0, arg: 0 };
    let steps = 0;
    while (events.pop()) {
      const { time, arg } = popped;
      if (events.upcoming(next)) this.readAhead(next.kind, next.arg);
      switch (popped.kind) {
        case EventKind.DEPENDENCY_CHANGE:
          dependency.change(arg, time);
          break;
        case EventKind.SERVICE_DONE:
          dependency.serviceDone(arg, time);
          break;
        case EventKind.RESPONSE:
          this.record.deviceEvents++;
          this.respond(arg, time);
          break;
        case EventKind.WAKE:
          this.record.deviceEvents++;
          this.wake(arg, time);
          break;
        case EventKind.POWER_CUT:
          this.powerCut();
          break;
        case EventKind.BOOT:
          this.boot(time);
          break;
      }
      if (progress && ++steps % PROGRESS_EVERY === 0) progress(Math.min(1, time / settings.durationMs));
    }
  }

  /** Reads the first of what the next event (`kind`, `arg`) will read: a wake, its device's
   * row and loop record; an answer, its request. At a million devices each is a cache miss,
   * and read now they wait on memory beside this event's work, not one after another in the
   * next (about 5% of a run at a million devices, in interleaved pairs). */
  private readAhead(kind: number, arg: number): void {
    if (kind === EventKind.WAKE) this.warmth ^= this.devices.readAhead(arg);
    else if (kind === EventKind.RESPONSE) this.warmth ^= this.requests.device(arg);
  }

  private respond(id: number, time: number): void {
    const requests = this.requests;
    const i = requests.device(id);
    // An answer to a request sent before a power cut finds its connection gone.
    if (requests.epoch(id) === this.devices.epochOf(i)) {
      this.devices.receive(i, requests.handle(id), requests.attempt(id), requests.status(id), time);
    }
    requests.release(id);
  }

  private wake(index: number, time: number): void {
    if (this.devices.wakeOf(index) !== time) return; // superseded by a later pass
    this.devices.run(index, time);
  }

  private powerCut(): void {
    for (let i = 0; i < this.settings.devices; i++) {
      addCounters(this.record, countersOf(this.enter(i)), 1); // what the lost instance counted
      this.record.pendingAtCut += this.devices.powerOff(i);
    }
  }

  private boot(time: number): void {
    const { record, seed, strategy } = this;
    record.bootAt = time;
    for (let i = 0; i < this.settings.devices; i++) {
      const api = this.enter(i);
      // A boot is a fresh start: a new seed from the hardware RNG, the policy set again.
      api.init(deriveSeed(seed, i, Stream.BOOT_SEED_LO), deriveSeed(seed, i, Stream.BOOT_SEED_HI));
      applyStrategy(api, strategy);
      // A restored image brings the counters it had at the save: counted already.
      if (this.devices.boot(i, time, strategy.boot ?? "restore"))
        addCounters(record, this.storedCounters[i], -1);
      this.devices.run(i, time);
    }
  }

  /** Adds what every device's instance counted, and returns the record. */
  finish(): RunRecord {
    for (let i = 0; i < this.settings.devices; i++) addCounters(this.record, countersOf(this.enter(i)), 1);
    return this.record;
  }
}

/** The counters a run totals, of one instance: retries denied, attempts started, timeouts. */
type Counted = [number, number, number];

function countersOf(api: TickRetryApi): Counted {
  return [
    api.counter(Counter.RETRIES_DENIED),
    api.counter(Counter.ATTEMPTS_STARTED),
    api.counter(Counter.ATTEMPT_TIMEOUTS),
  ];
}

/** Adds (sign 1) or takes back (sign -1) one instance's counters. */
function addCounters(record: RunRecord, [denied, started, timeouts]: Counted, sign: 1 | -1): void {
  record.retriesDenied += sign * denied;
  record.attemptsStarted += sign * started;
  record.attemptTimeouts += sign * timeouts;
}

function clockOffset(settings: FleetSettings, seed: number, device: number): number {
  const r = new Rng(deriveSeed(seed, device, Stream.CLOCK)).nextU32();
  switch (settings.clocks) {
    case "zero":
      return 0;
    case "random":
      return r;
    case "wrap":
      // The counter passes 0xFFFFFFFF -> 0 at a random moment inside the run.
      return tickAfter(0, -(r % settings.durationMs));
  }
}
