// The synthetic dependency of the experiment: a pool of workers with a fixed service
// time, a bounded FIFO queue that answers 503 at once when full, and a script of
// changes (a freeze that holds every request, its resume that answers the backlog 503,
// capacity drops). It only schedules; the simulator delivers answers to devices.
import { EventKind } from "./events.js";

/** One scripted change, applied at virtual time `at` (ms). Fields left out stay as they are. */
export interface DependencyChange {
  at: number;
  /** true: stop serving and hold every arrival; false: resume and answer the held backlog 503. */
  frozen?: boolean;
  workers?: number;
  serviceMs?: number;
}

export interface DependencySettings {
  /** Requests served at once. Default 10 (per 200 devices). */
  workers: number;
  /** Time one request takes a worker. Default 40 ms: 10 workers serve 250 requests/s. */
  serviceMs: number;
  /** Requests waiting for a worker; an arrival beyond it gets 503 at once. Default 100 (per 200 devices). */
  queueLimit: number;
  /** Requests a freeze holds; beyond it 503 at once. Default Infinity: a frozen server keeps accepting. */
  holdLimit: number;
  /** Default: freeze 8.5 s to 10 s, half capacity (5 workers) from 10 s, full again from 15 s. */
  script: DependencyChange[];
}

export const HTTP_OK = 200;
const HTTP_UNAVAILABLE = 503;

/** What the dependency needs from the simulator. */
export interface DependencyHost {
  /** Queues an event for the dependency itself (a service completion). */
  schedule(time: number, kind: EventKind, arg: number): void;
  /** The dependency answered request `id` with `status` at `time`. */
  answered(id: number, status: number, time: number): void;
}

/** A FIFO of request ids in a ring that grows when full. */
class IdQueue {
  private ids = new Int32Array(256);
  private head = 0;
  length = 0;

  push(id: number): void {
    if (this.length === this.ids.length) {
      const ids = new Int32Array(this.ids.length * 2);
      for (let i = 0; i < this.length; i++) ids[i] = this.ids[(this.head + i) % this.ids.length];
      this.ids = ids;
      this.head = 0;
    }
    this.ids[(this.head + this.length++) % this.ids.length] = id;
  }

  shift(): number {
    const id = this.ids[this.head];
    this.head = (this.head + 1) % this.ids.length;
    this.length--;
    return id;
  }
}

export class Dependency {
  workers: number;
  serviceMs: number;
  frozen = false;
  busy = 0;
  private readonly waiting = new IdQueue();

  constructor(
    private readonly settings: DependencySettings,
    private readonly host: DependencyHost,
  ) {
    this.workers = settings.workers;
    this.serviceMs = settings.serviceMs;
  }

  /** A request arrives. */
  arrive(id: number, time: number): void {
    if (this.frozen) {
      if (this.waiting.length < this.settings.holdLimit) this.waiting.push(id);
      else this.host.answered(id, HTTP_UNAVAILABLE, time);
    } else if (this.busy < this.workers) {
      this.start(id, time);
    } else if (this.waiting.length < this.settings.queueLimit) {
      this.waiting.push(id);
    } else {
      this.host.answered(id, HTTP_UNAVAILABLE, time);
    }
  }

  /** A worker finished request `id` (a SERVICE_DONE event). */
  serviceDone(id: number, time: number): void {
    this.busy--;
    this.host.answered(id, HTTP_OK, time);
    this.startWaiting(time);
  }

  /** Applies script entry `index` (a DEPENDENCY_CHANGE event). */
  change(index: number, time: number): void {
    const c = this.settings.script[index];
    if (c.workers !== undefined) this.workers = c.workers;
    if (c.serviceMs !== undefined) this.serviceMs = c.serviceMs;
    if (c.frozen === true) this.frozen = true;
    if (c.frozen === false && this.frozen) {
      // The resume answers the whole backlog at once: the server sheds what it held.
      this.frozen = false;
      while (this.waiting.length > 0) this.host.answered(this.waiting.shift(), HTTP_UNAVAILABLE, time);
    }
    this.startWaiting(time);
  }

  // Requests already being served when a freeze begins finish normally; only new work stops.
  private startWaiting(time: number): void {
    while (!this.frozen && this.busy < this.workers && this.waiting.length > 0) {
      this.start(this.waiting.shift(), time);
    }
  }

  private start(id: number, time: number): void {
    this.busy++;
    this.host.schedule(time + this.serviceMs, EventKind.SERVICE_DONE, id);
  }
}
