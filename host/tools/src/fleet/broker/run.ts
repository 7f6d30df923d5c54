// The broker-restart experiment (docs/fleet.md, "A broker restart"): N devices each hold
// one connection to a broker; at restartAtMs the broker restarts, every connection drops,
// and it accepts connects again downMs later. Per strategy: the 100 ms peak of connect
// attempts after the restart, the time from the broker's return until 99% of the devices
// are connected again, the connect attempts sent after the restart, and how long the
// broker spent overloaded (100 ms buckets in which it dropped a handshake for want of CPU).
import { EventQueue } from "../../event-queue.js";
import { PROGRESS_EVERY } from "../events.js";
import { StatePool, type Instances } from "../instances.js";
import type { Devices, DeviceHost } from "./devices.js";
import { FormulaDevices } from "./formula-devices.js";
import { Broker, BUCKET_MS } from "./model.js";
import { ModuleDevices } from "./module-devices.js";
import type { BrokerSettings } from "./settings.js";
import type { BrokerStrategy } from "./strategies.js";

export interface BrokerRow {
  strategy: string;
  peakConnects100ms: number;
  /** null: fewer than 99% were connected again by the end of the run. */
  reconnected99Ms: number | null;
  connectAttempts: number;
  overloadedMs: number;
}

/** Connect attempts per 100 ms bucket from the restart on, for the chart. */
export interface BrokerRun {
  row: BrokerRow;
  attempts: number[];
}

/** The kinds of the run's events: a device's wake-up (its index the argument), the restart. */
const WAKE = 0;
const RESTART = 1;

/** mulberry32: a small seeded generator for the devices' own randomness. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** One run. `instances`: where the module devices' states live (the pool by default);
 * `progress` hears the share of the virtual time done, now and then. */
export function runBrokerRestart(
  settings: BrokerSettings,
  strategy: BrokerStrategy,
  seed: number,
  instances: () => Instances = () => new StatePool(settings.devices),
  progress?: (share: number) => void,
): BrokerRun {
  const run = new BrokerRestart(settings, strategy, seed, instances);
  run.drain(progress);
  return run.finish();
}

/** A run's broker, devices and queue of wake-ups, ordered by time and then by push. */
class BrokerRestart {
  private readonly broker: Broker;
  private readonly devices: Devices;
  private readonly events = new EventQueue();
  private pushes = 0;
  private connected = 0;
  private sentAfter = 0;
  private reconnected: number | null = null;

  constructor(
    private readonly settings: BrokerSettings,
    private readonly strategy: BrokerStrategy,
    seed: number,
    instances: () => Instances,
  ) {
    const { devices: n, restartAtMs, downMs, durationMs } = settings;
    this.broker = new Broker(settings.broker, restartAtMs, restartAtMs + downMs, durationMs);
    const host: DeviceHost = {
      broker: this.broker,
      random: seeded(seed),
      sent: (t) => void (t >= restartAtMs && this.sentAfter++),
      live: () => this.connected,
    };
    this.devices =
      strategy.kind === "formula"
        ? new FormulaDevices(strategy, n, host)
        : new ModuleDevices(strategy, n, host, instances());
    // Devices come up over the first 20 s: connected long before the restart.
    for (let i = 0; i < n; i++) {
      const start = Math.floor(host.random() * 20_000);
      this.push(start, WAKE, i);
      this.devices.start(i, start);
    }
    this.push(restartAtMs, RESTART, -1);
  }

  drain(progress?: (share: number) => void): void {
    const { events, settings } = this;
    const back = settings.restartAtMs + settings.downMs;
    const enough = Math.ceil(0.99 * settings.devices);
    const popped = events.popped;
    for (let steps = 1; events.pop(); steps++) {
      const t = popped.time;
      if (t > settings.durationMs) break;
      if (popped.kind === RESTART) {
        for (let j = 0; j < settings.devices; j++) this.step(j, t, RESTART);
        continue;
      }
      this.step(popped.arg, t, WAKE);
      if (this.reconnected === null && t >= back && this.connected >= enough) this.reconnected = t - back;
      if (progress && steps % PROGRESS_EVERY === 0) progress(t / settings.durationMs);
    }
  }

  finish(): BrokerRun {
    const { broker, settings } = this;
    const first = Math.floor(settings.restartAtMs / BUCKET_MS);
    const attempts = Array.from(broker.attempts.subarray(first, Math.ceil(settings.durationMs / BUCKET_MS)));
    const row: BrokerRow = {
      strategy: this.strategy.name,
      peakConnects100ms: Math.max(0, ...attempts),
      reconnected99Ms: this.reconnected,
      connectAttempts: this.sentAfter,
      overloadedMs: broker.overloaded.subarray(first).reduce((n, b) => n + b, 0) * BUCKET_MS,
    };
    return { row, attempts };
  }

  /** Runs device i's handler for an event of `kind` at t, keeps the connected count and
   * schedules the device's next wake-up. */
  private step(i: number, t: number, kind: number): void {
    const { devices } = this;
    const before = devices.connected[i];
    const woke = kind === RESTART ? devices.dropped(i, t) : devices.wake(i, t);
    if (woke < Infinity && woke <= this.settings.durationMs) this.push(Math.max(woke, t), WAKE, i);
    this.connected += devices.connected[i] - before;
  }

  private push(time: number, kind: number, arg: number): void {
    this.events.push(time, this.pushes++, kind, arg);
  }
}
