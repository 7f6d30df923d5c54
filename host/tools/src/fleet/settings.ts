// The model's settings: everything the published experiment leaves open is one of these,
// with the default this simulator uses and docs/fleet.md explains.
import type { DependencySettings } from "./dependency.js";
import type { Rng } from "../random.js";

/** A random gap in whole ms: a closed device's think time, an open device's upload interval. */
export interface GapSpec {
  /** exp: exponential (memoryless, like independent users); uniform: 0 to 2 * mean; fixed. */
  kind: "exp" | "uniform" | "fixed";
  meanMs: number;
}

/** How devices begin operations. open: each device's upload timer begins one at every
 * tick, whether or not earlier ones have ended (as boards/esp32 does), up to the module's
 * 16 slots; closed: one operation at a time, the next a think time after the last ended. */
export type Arrivals = "open" | "closed";

export interface FleetSettings {
  devices: number;
  /** Devices begin operations until this virtual time; begun ones run to their end. Default 30 s. */
  durationMs: number;
  /** Default open. */
  arrivals: Arrivals;
  /** open: the gap between two ticks of a device's upload timer. Default exp with mean
   * 2000 ms: 0.5 operations/s per device, 100 requests/s from 200 devices, the rate the
   * closed loop runs at while the dependency is healthy. */
  interval: GapSpec;
  /** closed: the think time. Default exp with mean 1960 ms: with ~40 ms per operation
   * each device runs about 0.5 operations/s, so 200 devices offer about 100 requests/s. */
  think: GapSpec;
  /** Where device tick counters start. wrap (default): each device's u32 counter wraps at a
   * random moment of the run; zero: all start at 0; random: anywhere in the u32 range. */
  clocks: "wrap" | "zero" | "random";
  /** Order of events at the same virtual ms. fifo (default): the order they were scheduled
   * in; random: a seeded shuffle. */
  ties: "fifo" | "random";
  dependency: DependencySettings;
  /** Operations begun in [fromMs, toMs) are the affected ones. Default 8.5 s to 15 s. */
  affected: { fromMs: number; toMs: number };
  /** recoveryMs counts from fromMs (the resume, default 10 s) to the start of the first
   * 100 ms bucket from which on, until durationMs, every bucket is healthy: at least
   * `threshold` (default 0.95) of the dependency's answers in it are successes, and those
   * spent on average at most maxLatencyMs (default 200 ms, five service times) in the
   * dependency, so the backlog is gone too. A bucket without answers is healthy. 0 when
   * the run ends before fromMs. */
  recovery: { fromMs: number; threshold: number; maxLatencyMs: number };
  /** Every device loses power at atMs and boots again outageMs later; what it does with
   * its pending uploads at boot is its strategy's `boot`. Default: no power cut. */
  powerCut?: { atMs: number; outageMs: number };
}

/** The experiment's devices per 10 workers and a queue of 100: other fleet sizes scale them. */
const EXPERIMENT_DEVICES = 200;

/** The dependency's capacity when healthy: what --capacity WORKERS:SERVICE_MS:QUEUE sets. */
export interface Capacity {
  workers: number;
  serviceMs: number;
  queueLimit: number;
}

/** The experiment's settings for `devices` devices. The dependency freezes at 8.5 s,
 * resumes at 10 s with half its workers and has them all again at 15 s. Its healthy
 * `capacity` is given (--capacity), or by default the experiment's 10 workers of 40 ms and
 * queue of 100 per 200 devices scaled with devices / 200 (each rounded, at least 1: 5
 * workers while half), so a larger fleet meets the same dependency per device and runs
 * the same experiment at a larger scale. */
export function experimentSettings(devices = EXPERIMENT_DEVICES, capacity?: Capacity): FleetSettings {
  const scale = devices / EXPERIMENT_DEVICES;
  const scaled = (n: number) => Math.max(1, Math.round(n * scale));
  const { workers, serviceMs, queueLimit } = capacity ?? {
    workers: scaled(10),
    serviceMs: 40,
    queueLimit: scaled(100),
  };
  const half = capacity ? Math.max(1, Math.round(workers / 2)) : scaled(5);
  return {
    devices,
    durationMs: 30_000,
    arrivals: "open",
    interval: { kind: "exp", meanMs: 2000 },
    think: { kind: "exp", meanMs: 1960 },
    clocks: "wrap",
    ties: "fifo",
    dependency: {
      workers,
      serviceMs,
      queueLimit,
      holdLimit: Infinity,
      script: [
        { at: 8_500, frozen: true },
        { at: 10_000, frozen: false, workers: half },
        { at: 15_000, workers },
      ],
    },
    affected: { fromMs: 8_500, toMs: 15_000 },
    recovery: { fromMs: 10_000, threshold: 0.95, maxLatencyMs: 200 },
  };
}

/** A gap in whole ms (ticks are whole ms). */
export function drawGap(spec: GapSpec, rng: Rng): number {
  switch (spec.kind) {
    case "exp":
      return Math.round(-spec.meanMs * Math.log(1 - rng.next()));
    case "uniform":
      return Math.round(2 * spec.meanMs * rng.next());
    case "fixed":
      return spec.meanMs;
  }
}

/** When a device begins its first operation: a draw from the gap's equilibrium (residual)
 * distribution, so that the fleet starts in its steady state, arrivals spread and at the
 * steady rate, with no start-up wave. Exponential: the gap itself (memoryless); fixed:
 * uniform over one gap; uniform over [0, 2m]: the density (1 - x / 2m) / m, drawn by
 * inversion. */
export function drawPhase(spec: GapSpec, rng: Rng): number {
  switch (spec.kind) {
    case "exp":
      return drawGap(spec, rng);
    case "uniform":
      return Math.round(2 * spec.meanMs * (1 - Math.sqrt(1 - rng.next())));
    case "fixed":
      return Math.floor(spec.meanMs * rng.next());
  }
}

/** "10:40:100": 10 workers, 40 ms a request, a queue of 100 (--capacity). */
export function parseCapacity(text: string): Capacity {
  const m = /^(\d+):(\d+):(\d+)$/.exec(text);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
    throw new Error(
      `--capacity "${text}": want WORKERS:SERVICE_MS:QUEUE, whole numbers (workers and service time at least 1)`,
    );
  }
  return { workers: Number(m[1]), serviceMs: Number(m[2]), queueLimit: Number(m[3]) };
}

/** "9000:3000": a power cut at 9000 ms, power back 3000 ms later. */
export function parsePowerCut(text: string): { atMs: number; outageMs: number } {
  const m = /^(\d+):(\d+)$/.exec(text);
  if (!m || Number(m[2]) < 1) {
    throw new Error(
      `--power-cut "${text}": want AT:MS, the cut at AT ms and power back MS later (MS at least 1)`,
    );
  }
  return { atMs: Number(m[1]), outageMs: Number(m[2]) };
}

/** "exp:1960", "uniform:1960" or "fixed:1960", given as option `--name`. */
export function parseGap(name: string, text: string): GapSpec {
  const m = /^(exp|uniform|fixed):(\d+)$/.exec(text);
  // A mean of 0 would let a device whose retries all fail at once begin, fail and begin
  // again in the same virtual millisecond forever.
  if (!m || Number(m[2]) < 1) {
    throw new Error(`--${name} "${text}": want exp:MS, uniform:MS or fixed:MS (MS the mean, at least 1)`);
  }
  return { kind: m[1] as GapSpec["kind"], meanMs: Number(m[2]) };
}

/** The device model in words, for every table, chart and report. */
export function arrivalsLabel(s: FleetSettings): string {
  return s.arrivals === "open"
    ? `open arrivals (upload timer, ${s.interval.kind} intervals, mean ${s.interval.meanMs} ms)`
    : `closed loop (one operation at a time, ${s.think.kind} think time, mean ${s.think.meanMs} ms)`;
}
