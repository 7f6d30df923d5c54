// The parameter sweep that found the overload-aware session (strategies.ts, OVERLOAD_AWARE):
// families of reconnect policies over a grid of their parameters, each point the mean over
// the seeds of its time to 99% reconnected and its connect attempts. scripts/docs/broker-sweep.ts
// runs it and writes docs/fleet-broker-sweep.json; docs/fleet-broker-sweep.svg draws it.
import type { PolicySpec } from "../strategies.js";
import { runBrokerRestart, type BrokerRow } from "./run.js";
import type { BrokerSettings } from "./settings.js";
import {
  OVERLOAD_AWARE,
  publishedDecorrelated,
  type BrokerStrategy,
  type ModuleStrategy,
} from "./strategies.js";

/** Where scripts/docs/broker-sweep.ts writes the points, and the seeds it runs. */
export const SWEEP_DATA = "docs/fleet-broker-sweep.json";
export const SWEEP_SEEDS = [42, 1, 2, 3, 4];

/** One point of the sweep: a family, its parameters, and the means over the seeds. */
export interface SweepPoint {
  family: string;
  /** base/cap (/throttle base) and spread, ms, as "10000/20000/500 spread 30800". */
  params: string;
  /** Mean over the seeds; null when 99% were not back in some seed's run. */
  reconnected99Ms: number | null;
  connectAttempts: number;
  overloadedMs: number;
  /** The worst seed's figures (the goals hold for every seed), null as above. */
  worst: { reconnected99Ms: number | null; connectAttempts: number; overloadedMs: number };
}

/** The decorrelated formulas' grid (issue 36, item 4: the two formulas at each point). */
const DECORRELATED_BASES = [500, 1500, 2500, 3500];
const DECORRELATED_CAPS = [4000, 5000, 6000, 8000];
/** Full jitter's, wider: waits of seconds to tens of seconds after a refusal. */
const FULL_BASES = [2500, 5000, 10_000, 15_000];
const FULL_CAPS = [5000, 10_000, 20_000, 30_000];
const THROTTLE_BASES = [100, 500, 2000];

/** f at every base and cap of the grid, the cap at least the base. */
const grid = <T>(bases: number[], caps: number[], f: (base: number, cap: number) => T): T[] =>
  bases.flatMap((b) => caps.filter((c) => c >= b).map((c) => f(b, c)));

/** OVERLOAD_AWARE's policy at base and cap with `changes`, handshake timeouts reported as `timeout`. */
function module(
  name: string,
  base: number,
  cap: number,
  changes: Partial<PolicySpec>,
  timeout: ModuleStrategy["handshakeTimeout"] = "TRANSIENT",
): ModuleStrategy {
  const policy = { ...OVERLOAD_AWARE.policy, baseDelay: base, maxDelay: cap, ...changes };
  return { kind: "module", name, policy, handshakeTimeout: timeout };
}

/** Every family's strategies, each named by its parameters. */
export function sweepFamilies(operatorWindowMs: number): Record<string, BrokerStrategy[]> {
  const aware = (spread: number) =>
    grid(FULL_BASES, FULL_CAPS, (b, c) =>
      THROTTLE_BASES.map((tb) =>
        module(
          `${b}/${c}/${tb}${spread ? ` spread ${spread}` : ""}`,
          b,
          c,
          { throttleBaseDelay: tb, spread, spreadDrop: spread > 0 },
          "THROTTLED",
        ),
      ),
    ).flat();
  const decorrelated = { jitter: "DECORRELATED" as const, throttleBaseDelay: 0 };
  return {
    "overload-aware (full jitter, timeouts THROTTLED)": aware(0),
    [`overload-aware + spread on drop ${operatorWindowMs / 1000} s`]: aware(operatorWindowMs),
    "full jitter (timeouts as refusals)": grid(FULL_BASES, FULL_CAPS, (b, c) =>
      module(`${b}/${c}`, b, c, { throttleBaseDelay: 0 }),
    ),
    "decorrelated, module's formula": grid(DECORRELATED_BASES, DECORRELATED_CAPS, (b, c) =>
      module(`${b}/${c}`, b, c, decorrelated),
    ),
    "decorrelated, published formula": grid(DECORRELATED_BASES, DECORRELATED_CAPS, (b, c) => ({
      kind: "formula",
      name: `${b}/${c}`,
      wait: publishedDecorrelated(b, c),
    })),
  };
}

/** A point from its runs' rows, one per seed. */
function sweepPoint(family: string, params: string, rows: BrokerRow[]): SweepPoint {
  const mean = (v: number[]) => Math.round(v.reduce((a, b) => a + b, 0) / v.length);
  const times = rows.map((r) => r.reconnected99Ms);
  const done = !times.includes(null);
  const attempts = rows.map((r) => r.connectAttempts);
  const overloaded = rows.map((r) => r.overloadedMs);
  return {
    family,
    params,
    reconnected99Ms: done ? mean(times as number[]) : null,
    connectAttempts: mean(attempts),
    overloadedMs: mean(overloaded),
    worst: {
      reconnected99Ms: done ? Math.max(...(times as number[])) : null,
      connectAttempts: Math.max(...attempts),
      overloadedMs: Math.max(...overloaded),
    },
  };
}

/** Runs every family's strategies over `seeds`; `progress` hears each point done. */
export function runSweep(
  settings: BrokerSettings,
  seeds: number[],
  operatorWindowMs: number,
  progress?: (share: number) => void,
): SweepPoint[] {
  const families = Object.entries(sweepFamilies(operatorWindowMs));
  const total = families.reduce((n, [, s]) => n + s.length, 0);
  const points: SweepPoint[] = [];
  for (const [family, strategies] of families) {
    for (const s of strategies) {
      points.push(
        sweepPoint(
          family,
          s.name,
          seeds.map((seed) => runBrokerRestart(settings, s, seed).row),
        ),
      );
      progress?.(points.length / total);
    }
  }
  return points;
}
