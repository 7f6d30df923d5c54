// The discrete-event simulator: virtual time only (no sleeping, no wall clock), one event
// queue, N devices each running host/library/build/tickretry.wasm (by default as state blocks
// swapped through one instance: instances.ts), and the synthetic dependency. A run is a
// pure function of (settings, strategy, seed).
import { Counter, type TickRetryApi, tickAfter } from "tickretry";
import { Dependency, HTTP_OK } from "./dependency.js";
import { Device, type DeviceHost } from "./device.js";
import { EventQueue } from "../event-queue.js";
import { EventKind } from "./events.js";
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
) {
  const events = new EventQueue();
  const requests = new RequestTable();
  const record = new RunRecord();
  const tieRng = new Rng(deriveSeed(seed, -1, Stream.TIES));
  let sequence = 0;
  const tie = settings.ties === "fifo" ? () => sequence++ : () => tieRng.nextU32();

  const dependency = new Dependency(settings.dependency, {
    schedule: (time, kind, arg) => events.push(time, tie(), kind, arg),
    answered(id, status, time) {
      requests.status[id] = status;
      record.answer(time, status === HTTP_OK, requests.sentAt[id]);
      events.push(time, tie(), EventKind.RESPONSE, id);
    },
  });
  settings.dependency.script.forEach((c, i) => events.push(c.at, tie(), EventKind.DEPENDENCY_CHANGE, i));
  if (settings.powerCut) {
    events.push(settings.powerCut.atMs, tie(), EventKind.POWER_CUT, 0);
    events.push(settings.powerCut.atMs + settings.powerCut.outageMs, tie(), EventKind.BOOT, 0);
  }

  const gap = settings.arrivals === "open" ? settings.interval : settings.think;
  // Each device's counters in its last stored image: a restored instance starts from them.
  const storedCounters: Counted[] = [];
  const host: DeviceHost = {
    durationMs: settings.durationMs,
    arrivals: settings.arrivals,
    persists: settings.powerCut !== undefined,
    stored: (device) => (storedCounters[device.index] = countersOf(instances.api(device.index))),
    send(device, handle, attempt, time) {
      record.send(time, attempt > 1);
      dependency.arrive(requests.add(device.index, device.epoch, handle, attempt, time), time);
    },
    wakeAt(device, time) {
      device.wake = time;
      events.push(time, tie(), EventKind.WAKE, device.index);
    },
    ended: (start, end, reason, pending) => record.operation(start, end, reason, pending),
    stale: () => record.staleResponses++,
    tableFull: () => record.tableFull++,
    gap: (rng) => drawGap(gap, rng),
  };

  /** Device i's instance, holding its state: what every event of device i starts with. */
  const enter = (i: number) => {
    instances.enter(i);
    return instances.api(i);
  };
  const devices: Device[] = [];
  for (let i = 0; i < settings.devices; i++) {
    const api = enter(i);
    api.init(deriveSeed(seed, i, Stream.SEED_LO), deriveSeed(seed, i, Stream.SEED_HI));
    applyStrategy(api, strategy);
    devices.push(
      new Device(i, api, clockOffset(settings, seed, i), new Rng(deriveSeed(seed, i, Stream.GAP)), host),
    );
  }
  for (const d of devices) d.start(drawPhase(gap, new Rng(deriveSeed(seed, d.index, Stream.PHASE))));

  let steps = 0;
  const popped = events.popped;
  while (events.pop()) {
    const { time, arg } = popped;
    switch (popped.kind) {
      case EventKind.DEPENDENCY_CHANGE:
        dependency.change(arg, time);
        break;
      case EventKind.SERVICE_DONE:
        dependency.serviceDone(arg, time);
        break;
      case EventKind.RESPONSE: {
        const device = devices[requests.device[arg]];
        // An answer to a request sent before a power cut finds its connection gone.
        if (requests.epoch[arg] === device.epoch) {
          enter(device.index);
          device.receive(requests.handle[arg], requests.attempt[arg], requests.status[arg], time);
        }
        requests.release(arg);
        break;
      }
      case EventKind.WAKE: {
        const device = devices[arg];
        if (device.wake !== time) break; // superseded by an earlier wake
        device.wake = -1;
        enter(device.index);
        device.run(time);
        break;
      }
      case EventKind.POWER_CUT:
        for (const d of devices) {
          addCounters(record, countersOf(enter(d.index)), 1); // what the lost instance counted
          record.pendingAtCut += d.powerOff();
        }
        break;
      case EventKind.BOOT:
        record.bootAt = time;
        for (const d of devices) {
          const api = enter(d.index);
          // A boot is a fresh start: a new seed from the hardware RNG, the policy set again.
          api.init(
            deriveSeed(seed, d.index, Stream.BOOT_SEED_LO),
            deriveSeed(seed, d.index, Stream.BOOT_SEED_HI),
          );
          applyStrategy(api, strategy);
          // A restored image brings the counters it had at the save: counted already.
          if (d.boot(time, strategy.boot ?? "restore")) addCounters(record, storedCounters[d.index], -1);
          d.run(time);
        }
        break;
    }
    if (progress && ++steps % 8192 === 0) progress(Math.min(1, time / settings.durationMs));
  }

  for (let i = 0; i < settings.devices; i++) addCounters(record, countersOf(enter(i)), 1);
  return record;
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
