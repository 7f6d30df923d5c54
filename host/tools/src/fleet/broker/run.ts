// The broker-restart experiment (docs/fleet.md, "A broker restart"): N devices each hold
// one connection to a broker; at restartAtMs the broker restarts, every connection drops,
// and it accepts connects again downMs later. Per strategy: the 100 ms peak of connect
// attempts after the restart, the time from the broker's return until 99% of the devices
// are connected again, the connect attempts sent after the restart, and how long the
// broker spent overloaded (100 ms buckets in which it dropped a handshake for want of CPU).
import { LoopTable } from "tickretry";
import { StatePool, type Instances } from "../instances.js";
import { Broker, BUCKET_MS } from "./model.js";
import { makeDevice, type Device } from "./devices.js";
import { WakeHeap } from "./heap.js";
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

/** Connect attempts per 100 ms bucket from the restart on, for the chart. */
export interface BrokerRun {
  row: BrokerRow;
  attempts: number[];
}

/** One run; `instances`: where the module devices' states live (the pool by default). */
export function runBrokerRestart(
  settings: BrokerSettings,
  strategy: BrokerStrategy,
  seed: number,
  instances: () => Instances = () => new StatePool(settings.devices),
): BrokerRun {
  const { devices: n, restartAtMs, downMs, durationMs } = settings;
  let shared: { instances: Instances; loops: LoopTable } | undefined;
  const slot = (index: number) => {
    shared ??= { instances: instances(), loops: new LoopTable(n) };
    return { ...shared, index };
  };
  const broker = new Broker(settings.broker, restartAtMs, restartAtMs + downMs);
  const random = seeded(seed);
  const heap = new WakeHeap();
  let connected = 0;
  let sentAfter = 0;
  const sent = (t: number) => void (t >= restartAtMs && sentAfter++);
  // Devices come up over the first 20 s: connected long before the restart.
  const fleet: Device[] = Array.from({ length: n }, (_, i) => {
    const start = Math.floor(random() * 20_000);
    heap.push(start, i);
    return makeDevice(
      strategy,
      broker,
      random,
      sent,
      () => connected,
      start,
      () => slot(i),
    );
  });
  heap.push(restartAtMs, -1);
  let reconnected: number | null = null;
  // Runs a device's handler at t, keeps the connected count and schedules its next wake.
  const step = (i: number, t: number, handle: (d: Device) => number) => {
    const before = fleet[i].connected;
    const woke = handle(fleet[i]);
    if (woke < Infinity && woke <= durationMs) heap.push(Math.max(woke, t), i);
    connected += Number(fleet[i].connected) - Number(before);
  };
  while (heap.size > 0) {
    const [t, i] = heap.pop();
    if (t > durationMs) break;
    if (i < 0) {
      fleet.forEach((_, j) => step(j, t, (d) => d.dropped(t)));
      continue;
    }
    step(i, t, (d) => d.wake(t));
    if (reconnected === null && t >= restartAtMs + downMs && connected >= Math.ceil(0.99 * n)) {
      reconnected = t - (restartAtMs + downMs);
    }
  }
  const first = Math.floor(restartAtMs / BUCKET_MS);
  const attempts = Array.from(
    { length: Math.ceil(durationMs / BUCKET_MS) - first },
    (_, b) => broker.attempts.get(first + b) ?? 0,
  );
  const row: BrokerRow = {
    strategy: strategy.name,
    peakConnects100ms: Math.max(0, ...attempts),
    reconnected99Ms: reconnected,
    connectAttempts: sentAfter,
    overloadedMs: [...broker.overloaded].filter((b) => b >= first).length * BUCKET_MS,
  };
  return { row, attempts };
}
