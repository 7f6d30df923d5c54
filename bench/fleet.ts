// npm run bench:fleet [-- --json]: how fast the fleet simulator runs. The experiment (200
// devices, open arrivals, strategies A to D, 30 s of virtual time, one seed) in wall time
// and as a share of the virtual time it simulates; the closed loop alike; the contention
// experiment (100 clients, 100 runs, five strategies); device-seconds simulated per wall
// second as the fleet grows to 2000 and 10,000 devices; peak memory at 10,000 devices.
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { runContentionExperiment } from "../host/tools/src/contention/experiment.js";
import { CONTENTION_STRATEGIES, PUBLISHED } from "../host/tools/src/contention/strategies.js";
import { experimentSettings, type Arrivals } from "../host/tools/src/fleet/settings.js";
import { prepareInstances, runFleet } from "../host/tools/src/fleet/simulator.js";
import { STRATEGIES } from "../host/tools/src/fleet/strategies.js";

const SIZES = [200, 2000, 10_000] as const;
const SEED = 42;

export interface FleetBench {
  /** Wall ms of the 200-device experiment, open arrivals, all four strategies, one seed
   * (median of warm runs). */
  experimentMs: number;
  /** The same with the closed loop. */
  experimentClosedMs: number;
  /** Wall ms of `tickretry contention --clients 100 --runs 100` (five strategies, 50,000
   * client operations), warm, the faster of two. */
  contentionMs: number;
  /** The same, run first in a fresh process: compiling and instantiating included. */
  coldExperimentMs: number;
  /** experimentMs over the virtual time simulated (4 strategies x 30 s); below 1 is faster than real time. */
  realTimeRatio: number;
  /** Device-seconds of virtual time simulated per wall second, by fleet size (all four
   * strategies; every size measured after the 10,000 instances exist, so alike). */
  deviceSecondsPerSecond: Record<(typeof SIZES)[number], number>;
  /** Cost per device-second at 10,000 devices over the cost at 200 (1 is flat). */
  costGrowth: number;
  /** Wall ms to create the 10,000 module instances (once per process, outside the figures above). */
  instantiate10000Ms: number;
  /** ns per call of one export (counter) round-robin over the first n module instances,
   * no simulator involved: how the cost of reaching an instance grows with their number. */
  callNs: Record<(typeof SIZES)[number], number>;
  /** process.resourceUsage().maxRSS after the 10,000-device runs, in MB. */
  peakRssMb: number;
  /** V8 heap in use after the 10,000-device runs, in MB. */
  heapUsedMb: number;
}

/** Wall ms of the four strategies over one seed, with `devices` devices. */
function experiment(devices: number, arrivals: Arrivals = "open"): number {
  const settings = { ...experimentSettings(devices), arrivals };
  const start = performance.now();
  for (const name of ["A", "B", "C", "D"]) runFleet(settings, STRATEGIES[name], SEED);
  return performance.now() - start;
}

function callNs(devices: number): number {
  const apis = prepareInstances(devices).slice(0, devices);
  const calls = 1_000_000;
  let sum = 0;
  const start = performance.now();
  // A stride coprime with every size visits the instances in a scattered order, as events do.
  for (let i = 0; i < calls; i++) sum += apis[(i * 7919) % devices].counter(0);
  const ns = ((performance.now() - start) * 1e6) / calls;
  return sum < 0 ? -1 : Math.round(ns);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Measures the simulator; `onProgress` hears each step as it starts. */
function benchFleet(onProgress: (step: string) => void = () => {}): FleetBench {
  onProgress("200 devices, cold and warm");
  const coldExperimentMs = experiment(200);
  // Warm-up runs let the JIT settle before the 200-device figure is taken.
  for (let i = 0; i < 3; i++) experiment(200);
  const experimentMs = median(Array.from({ length: 7 }, () => experiment(200)));
  const experimentClosedMs = median(Array.from({ length: 7 }, () => experiment(200, "closed")));
  const virtualMs = 4 * experimentSettings().durationMs;

  onProgress("contention, 100 clients, 100 runs");
  const contention = () => {
    const start = performance.now();
    runContentionExperiment(
      PUBLISHED.map((n) => CONTENTION_STRATEGIES[n]),
      [100],
      100,
      1,
    );
    return performance.now() - start;
  };
  const contentionMs = Math.min(contention(), contention());

  onProgress("creating 10,000 instances");
  const start = performance.now();
  prepareInstances(10_000);
  const instantiate10000Ms = performance.now() - start;

  const deviceSecondsPerSecond = {} as FleetBench["deviceSecondsPerSecond"];
  for (const devices of SIZES) {
    // The fastest of a few runs: the one least disturbed by whatever else the machine runs.
    const runs = devices === 200 ? 9 : devices === 2000 ? 3 : 2;
    onProgress(`${devices} devices`);
    const ms = Math.min(...Array.from({ length: runs }, () => experiment(devices)));
    const deviceSeconds = (4 * devices * experimentSettings(devices).durationMs) / 1000;
    deviceSecondsPerSecond[devices] = Math.round(deviceSeconds / (ms / 1000));
  }
  onProgress("export calls across instances");
  const calls = {} as FleetBench["callNs"];
  for (const devices of SIZES) calls[devices] = Math.min(...[1, 2, 3].map(() => callNs(devices)));
  return {
    experimentMs: Math.round(experimentMs * 10) / 10,
    experimentClosedMs: Math.round(experimentClosedMs * 10) / 10,
    contentionMs: Math.round(contentionMs),
    coldExperimentMs: Math.round(coldExperimentMs * 10) / 10,
    realTimeRatio: experimentMs / virtualMs,
    deviceSecondsPerSecond,
    costGrowth: deviceSecondsPerSecond[200] / deviceSecondsPerSecond[10_000],
    instantiate10000Ms: Math.round(instantiate10000Ms),
    callNs: calls,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });
  const b = benchFleet((step) => process.stderr.write(`bench:fleet: ${step}\n`));
  if (values.json) {
    console.log(JSON.stringify(b, null, 2));
  } else {
    console.log(
      `fleet experiment (200 devices, open arrivals, A-D, 30 s, seed ${SEED}): ${b.experimentMs} ms warm, ${b.coldExperimentMs} ms cold`,
    );
    console.log(`  closed loop: ${b.experimentClosedMs} ms warm`);
    console.log(`contention (100 clients, 100 runs, 5 strategies): ${b.contentionMs} ms`);
    console.log(
      `  ${b.realTimeRatio.toExponential(2)} of real time (${Math.round(1 / b.realTimeRatio)}x faster)`,
    );
    for (const [devices, rate] of Object.entries(b.deviceSecondsPerSecond)) {
      console.log(`  ${devices.padStart(5)} devices: ${rate} device-seconds per second`);
    }
    console.log(`  cost per device-second, 10,000 vs 200 devices: ${b.costGrowth.toFixed(2)}x`);
    console.log(
      `  one export call over 200 / 2000 / 10,000 instances: ${Object.values(b.callNs).join(" / ")} ns`,
    );
    console.log(
      `  10,000 instances: ${b.instantiate10000Ms} ms to create; peak RSS ${b.peakRssMb} MB, heap ${b.heapUsedMb} MB`,
    );
  }
}
