// The parameter sweep that found the overload-aware session (strategies.ts, OVERLOAD_AWARE):
// families of reconnect policies over a grid of their parameters, each point the mean over
// the seeds of its time to 99% reconnected and its connect attempts. scripts/docs/broker-sweep.ts
// runs it and writes docs/fleet-broker-sweep.json; docs/fleet-broker-sweep.svg draws it.
import type { PolicySpec } from "../strategies.js";
import { runBrokerRestart } from "./run.js";
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
  /** base/cap (/throttle base) and spread, ms, as "2500/4000/500 spread 35000". */
  params: string;
  /** Mean over the seeds; null when 99% were not back in some seed's run. */
  reconnected99Ms: number | null;
  connectAttempts: number;
  overloadedMs: number;
}

const BASES = [500, 1500, 2500, 3500];
const CAPS = [4000, 5000, 6000, 8000];

const grid = <T>(f: (base: number, cap: number) => T | undefined): T[] =>
  BASES.flatMap((b) => CAPS.map((c) => f(b, c))).filter((x): x is T => x !== undefined);

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
    grid((b, c) =>
      [500, 1000].map((tb) =>
        module(
          `${b}/${c}/${tb}${spread ? ` spread ${spread}` : ""}`,
          b,
          c,
          { throttleBaseDelay: tb, spread, spreadDrop: spread > 0 },
          "THROTTLED",
        ),
      ),
    ).flat();
  return {
    "overload-aware (decorrelated, timeouts THROTTLED)": aware(0),
    [`overload-aware + spread on drop ${operatorWindowMs / 1000} s`]: aware(operatorWindowMs),
    "full jitter": grid((b, c) => module(`${b}/${c}`, b, c, { jitter: "FULL" })),
    "decorrelated, module's formula": grid((b, c) => module(`${b}/${c}`, b, c, {})),
    "decorrelated, published formula": grid((b, c) => ({
      kind: "formula",
      name: `${b}/${c}`,
      wait: publishedDecorrelated(b, c),
    })),
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
      const rows = seeds.map((seed) => runBrokerRestart(settings, s, seed).row);
      const mean = (v: number[]) => Math.round(v.reduce((a, b) => a + b, 0) / v.length);
      const times = rows.map((r) => r.reconnected99Ms);
      points.push({
        family,
        params: s.name,
        reconnected99Ms: times.includes(null) ? null : mean(times as number[]),
        connectAttempts: mean(rows.map((r) => r.connectAttempts)),
        overloadedMs: mean(rows.map((r) => r.overloadedMs)),
      });
      progress?.(points.length / total);
    }
  }
  return points;
}
