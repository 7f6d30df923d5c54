// The model's settings: everything the published experiment leaves open is one of these,
// with the default this simulator uses and docs/fleet.md explains.
import type { DependencySettings } from "./dependency.js";
import type { Rng } from "../random.js";

/** Think time between two operations of one device. */
export interface ThinkSpec {
  /** exp: exponential (memoryless, like independent users); uniform: 0 to 2 * mean; fixed. */
  kind: "exp" | "uniform" | "fixed";
  meanMs: number;
}

export interface FleetSettings {
  devices: number;
  /** Devices begin operations until this virtual time; begun ones run to their end. Default 30 s. */
  durationMs: number;
  /** Default exp with mean 1960 ms: with ~40 ms per operation each device runs about 0.5
   * operations/s, so 200 devices offer about 100 requests/s, as in the experiment. */
  think: ThinkSpec;
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
}

/** The experiment's devices per 10 workers and a queue of 100: other fleet sizes scale them. */
const EXPERIMENT_DEVICES = 200;

/** The experiment's settings for `devices` devices. The dependency's workers and queue scale
 * with devices / 200, so a larger fleet runs the same experiment at a larger scale. */
export function experimentSettings(devices = EXPERIMENT_DEVICES): FleetSettings {
  const scale = devices / EXPERIMENT_DEVICES;
  const workers = (n: number) => Math.max(1, Math.round(n * scale));
  return {
    devices,
    durationMs: 30_000,
    think: { kind: "exp", meanMs: 1960 },
    clocks: "wrap",
    ties: "fifo",
    dependency: {
      workers: workers(10),
      serviceMs: 40,
      queueLimit: workers(100),
      holdLimit: Infinity,
      script: [
        { at: 8_500, frozen: true },
        { at: 10_000, frozen: false, workers: workers(5) },
        { at: 15_000, workers: workers(10) },
      ],
    },
    affected: { fromMs: 8_500, toMs: 15_000 },
    recovery: { fromMs: 10_000, threshold: 0.95, maxLatencyMs: 200 },
  };
}

/** A think time in whole ms (ticks are whole ms). */
export function drawThink(spec: ThinkSpec, rng: Rng): number {
  switch (spec.kind) {
    case "exp":
      return Math.round(-spec.meanMs * Math.log(1 - rng.next()));
    case "uniform":
      return Math.round(2 * spec.meanMs * rng.next());
    case "fixed":
      return spec.meanMs;
  }
}

/** When a device begins its first operation: a draw from the think time's equilibrium
 * (residual) distribution, so that the fleet starts in its steady state, arrivals spread
 * and at the steady rate, with no start-up wave. Exponential: the think time itself
 * (memoryless); fixed: uniform over one think time; uniform over [0, 2m]: the density
 * (1 - x / 2m) / m, drawn by inversion. */
export function drawPhase(spec: ThinkSpec, rng: Rng): number {
  switch (spec.kind) {
    case "exp":
      return drawThink(spec, rng);
    case "uniform":
      return Math.round(2 * spec.meanMs * (1 - Math.sqrt(1 - rng.next())));
    case "fixed":
      return Math.floor(spec.meanMs * rng.next());
  }
}

/** "exp:1960", "uniform:1960" or "fixed:1960". */
export function parseThink(text: string): ThinkSpec {
  const m = /^(exp|uniform|fixed):(\d+)$/.exec(text);
  // A mean of 0 would let a device whose retries all fail at once begin, fail and begin
  // again in the same virtual millisecond forever.
  if (!m || Number(m[2]) < 1) {
    throw new Error(`--think "${text}": want exp:MS, uniform:MS or fixed:MS (MS the mean, at least 1)`);
  }
  return { kind: m[1] as ThinkSpec["kind"], meanMs: Number(m[2]) };
}
