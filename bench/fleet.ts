// npm run bench:fleet [-- --json] [-- --quick] [-- --chart FILE]: how fast the fleet
// simulator runs. The experiment (200 devices, open arrivals, strategies A to D, 30 s of
// virtual time, one seed) in wall time and as a share of the virtual time it simulates; the
// closed loop alike; the contention experiment (100 clients, 100 runs, five strategies);
// the 5-seed x 4-strategy table on one thread and on two, at 200 and 2,000 devices, warm in
// this process and cold as whole CLI processes; then strategy C at 1,000, 10,000, 100,000
// and 1,000,000 devices (--quick stops at 100,000; the fastest of five runs below 100,000,
// one run from there): wall and CPU time, device-seconds and devices per wall second, peak
// RSS and bytes per device, and how the cost per device-second grows from 1,000 devices
// on, against 1,000 devices run before the larger sizes and again after them, and the
// least growth this machine's memory allows (memory-floor.ts); --chart draws both, size by
// size, as an SVG (speed-chart.ts).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { renderSvg } from "../host/tools/src/chart.js";
import { runContentionExperiment } from "../host/tools/src/contention/experiment.js";
import { CONTENTION_STRATEGIES, PUBLISHED } from "../host/tools/src/contention/strategies.js";
import { experimentSettings, type Arrivals } from "../host/tools/src/fleet/settings.js";
import { runExperimentParallel } from "../host/tools/src/fleet/parallel.js";
import { runFleet } from "../host/tools/src/fleet/simulator.js";
import { STRATEGIES } from "../host/tools/src/fleet/strategies.js";
import { inHugePages } from "../host/tools/src/huge-pages.js";
import { memoryFloor, type MemoryFloor } from "./memory-floor.js";
import { GROWTH_GOAL, speedSpec } from "./speed-chart.js";

const QUICK_SIZES = [1000, 10_000, 100_000];
const MILLION = 1_000_000;
const SMALL_RUNS = 5;
const SEED = 42;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** `x` rounded to two decimals, as the bench prints ratios and µs. */
const hundredths = (x: number) => Math.round(x * 100) / 100;

/** One run of strategy C, seed 42, 30 s, at one fleet size. */
export interface ScaleRow {
  devices: number;
  wallMs: number;
  /** User + system CPU of the process over the run: below wallMs when the machine is busy. */
  cpuMs: number;
  /** Device-seconds of virtual time simulated per wall second. */
  deviceSecondsPerSecond: number;
  /** Devices simulated through the whole 30 s per wall second. */
  devicesPerSecond: number;
  /** Wall µs per device-second. */
  usPerDeviceSecond: number;
  /** CPU µs per device-second: the cost itself, when other processes share the cores. */
  cpuUsPerDeviceSecond: number;
  /** process.resourceUsage().maxRSS after the run, in MB (sizes run smallest first). */
  peakRssMb: number;
  /** The growth of peak RSS over the process before the first size, per device. */
  bytesPerDevice: number;
  /** Events that reached a device (wakes, answers) per device-second. */
  deviceEventsPerDeviceSecond: number;
}

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
  /** Strategy C at each fleet size, smallest first. */
  scale: ScaleRow[];
  /** Wall cost per device-second at the largest size over the cost at 1,000 (1 is flat). */
  costGrowth: number;
  /** The same in CPU time. */
  cpuCostGrowth: number;
  /** The size costGrowth compares with 1,000. */
  costGrowthAt: number;
  /** 1,000 devices again, after the largest size: the machine's speed drifts (up to 1.6
   * times within minutes here), and the growth against each of the two shows how far. */
  again: ScaleRow;
  /** costGrowth against `again`. */
  costGrowthAgain: number;
  cpuCostGrowthAgain: number;
  /** The least costGrowth this machine's memory allows (memory-floor.ts). */
  memoryFloor: MemoryFloor;
  /** The 5-seed x 4-strategy table on one thread and on two, by fleet size. */
  threads: ThreadsRow[];
}

/** The experiment's table (strategies A-D, seeds 1-5) at one fleet size on one thread and
 * on two. Warm: in this process, after tables enough on each that the workers threads/pool.ts
 * keeps have warmed up as this thread has; cold: `tickretry fleet` as a whole process, as
 * a CLI run starts. Each the median of interleaved pairs (the machine's speed drifts), the
 * ratio the median of the pairs' ratios. */
export interface ThreadsRow {
  devices: number;
  oneThreadMs: number;
  twoThreadsMs: number;
  ratio: number;
  /** The warm pairs' lowest and highest ratio. */
  ratioRange: [number, number];
  pairs: number;
  coldOneThreadMs: number;
  coldTwoThreadsMs: number;
  coldRatio: number;
  coldPairs: number;
}

const TABLE_STRATEGIES = ["A", "B", "C", "D"];
const TABLE_SEEDS = [1, 2, 3, 4, 5];

/** Wall ms of the table at `devices` devices on `threads` threads, in this process. */
async function table(devices: number, threads: number): Promise<number> {
  const strategies = TABLE_STRATEGIES.map((k) => STRATEGIES[k]);
  const start = performance.now();
  await runExperimentParallel(experimentSettings(devices), strategies, TABLE_SEEDS, threads);
  return performance.now() - start;
}

/** Wall ms of the table at `devices` devices on `threads` threads, as a whole CLI process. */
async function coldTable(devices: number, threads: number): Promise<number> {
  const cli = fileURLToPath(new URL("../host/tools/bin/tickretry.js", import.meta.url));
  const args = ["fleet", "--devices", `${devices}`, "--seeds", TABLE_SEEDS.join(",")];
  args.push("--strategies", TABLE_STRATEGIES.join(","), "--threads", `${threads}`, "--json");
  const start = performance.now();
  const r = spawnSync(process.execPath, [cli, ...args]);
  if (r.status !== 0) throw new Error(`bench:fleet: tickretry fleet exited with ${r.status}: ${r.stderr}`);
  return performance.now() - start;
}

/** `count` pairs of `time` on one thread and on two, which goes first alternating: their
 * medians and the median, lowest and highest of the pairs' ratios. */
async function pairs(count: number, time: (threads: number) => Promise<number>) {
  const one: number[] = [];
  const two: number[] = [];
  for (let i = 0; i < count; i++) {
    const oneFirst = i % 2 === 0;
    const first = await time(oneFirst ? 1 : 2);
    const second = await time(oneFirst ? 2 : 1);
    one.push(oneFirst ? first : second);
    two.push(oneFirst ? second : first);
  }
  const ratios = one.map((ms, i) => two[i] / ms);
  return {
    oneMs: Math.round(median(one)),
    twoMs: Math.round(median(two)),
    ratio: hundredths(median(ratios)),
    range: [hundredths(Math.min(...ratios)), hundredths(Math.max(...ratios))] as [number, number],
  };
}

/** The table's row at `devices` devices: `warmUps` tables on each before `count` warm pairs,
 * and `coldCount` cold pairs. */
async function threadsRow(
  devices: number,
  warmUps: number,
  count: number,
  coldCount: number,
): Promise<ThreadsRow> {
  for (let i = 0; i < warmUps; i++) await pairs(1, (threads) => table(devices, threads));
  const warm = await pairs(count, (threads) => table(devices, threads));
  const cold = await pairs(coldCount, (threads) => coldTable(devices, threads));
  return {
    devices,
    oneThreadMs: warm.oneMs,
    twoThreadsMs: warm.twoMs,
    ratio: warm.ratio,
    ratioRange: warm.range,
    pairs: count,
    coldOneThreadMs: cold.oneMs,
    coldTwoThreadsMs: cold.twoMs,
    coldRatio: cold.ratio,
    coldPairs: coldCount,
  };
}

/** Wall ms of the four strategies over one seed, with `devices` devices. */
function experiment(devices: number, arrivals: Arrivals = "open"): number {
  const settings = { ...experimentSettings(devices), arrivals };
  const start = performance.now();
  for (const name of ["A", "B", "C", "D"]) runFleet(settings, STRATEGIES[name], SEED);
  return performance.now() - start;
}

/** One run of strategy C at `devices` devices, with what it cost. */
function scaleRow(devices: number, baselineKb: number, onProgress: (step: string) => void): ScaleRow {
  const settings = experimentSettings(devices);
  let shown = 0;
  const progress = (share: number) => {
    if (share < shown + 0.1) return;
    shown = Math.floor(share * 10) / 10;
    onProgress(`${devices} devices: ${Math.round(share * 100)}% of the virtual time`);
  };
  // A run under 100,000 devices takes a second or less, and one pause of the collector's
  // or the machine's would move it: the fastest of SMALL_RUNS, which makes the growth
  // from it no smaller.
  let wallMs = Infinity;
  let used = { user: 0, system: 0 };
  let deviceEvents = 0;
  for (let k = 0; k < (devices < 100_000 ? SMALL_RUNS : 1); k++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const record = runFleet(settings, STRATEGIES.C, SEED, devices >= 100_000 ? progress : undefined);
    const ms = performance.now() - start;
    deviceEvents = record.deviceEvents;
    if (ms < wallMs) [wallMs, used] = [ms, process.cpuUsage(cpu)];
  }
  const deviceSeconds = (devices * settings.durationMs) / 1000;
  const peakKb = process.resourceUsage().maxRSS;
  return {
    devices,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round((used.user + used.system) / 1000),
    deviceSecondsPerSecond: Math.round(deviceSeconds / (wallMs / 1000)),
    devicesPerSecond: Math.round(devices / (wallMs / 1000)),
    usPerDeviceSecond: hundredths((wallMs * 1000) / deviceSeconds),
    cpuUsPerDeviceSecond: hundredths((used.user + used.system) / deviceSeconds),
    peakRssMb: Math.round(peakKb / 1024),
    bytesPerDevice: Math.round(((peakKb - baselineKb) * 1024) / devices),
    deviceEventsPerDeviceSecond: deviceEvents / deviceSeconds,
  };
}

/** The figures by fleet size: strategy C at each size, 1,000 devices again, the cost
 * growth against both, and the memory floor under it. */
type ScaleFigures = Pick<
  FleetBench,
  | "scale"
  | "costGrowth"
  | "cpuCostGrowth"
  | "costGrowthAt"
  | "again"
  | "costGrowthAgain"
  | "cpuCostGrowthAgain"
  | "memoryFloor"
>;

function scaleFigures(quick: boolean, onProgress: (step: string) => void): ScaleFigures {
  const sizes = quick ? QUICK_SIZES : [...QUICK_SIZES, MILLION];
  onProgress(`strategy C at ${sizes.join(", ")} devices`);
  const baselineKb = process.resourceUsage().maxRSS;
  const scale = sizes.map((devices) => {
    onProgress(`${devices} devices`);
    return scaleRow(devices, baselineKb, onProgress);
  });
  onProgress(`${sizes[0]} devices again`);
  const again = scaleRow(sizes[0], baselineKb, onProgress);
  const last = scale[scale.length - 1];
  onProgress(`the memory floor: random touches among as many state blocks as devices`);
  const floor = memoryFloor(sizes, scale[0].usPerDeviceSecond, last.deviceEventsPerDeviceSecond);
  const growth = (of: ScaleRow) => hundredths(last.usPerDeviceSecond / of.usPerDeviceSecond);
  const cpuGrowth = (of: ScaleRow) => hundredths(last.cpuUsPerDeviceSecond / of.cpuUsPerDeviceSecond);
  return {
    scale,
    costGrowth: growth(scale[0]),
    cpuCostGrowth: cpuGrowth(scale[0]),
    costGrowthAt: last.devices,
    again,
    costGrowthAgain: growth(again),
    cpuCostGrowthAgain: cpuGrowth(again),
    memoryFloor: floor,
  };
}

/** Measures the simulator; `onProgress` hears each step as it starts. */
async function benchFleet(
  quick: boolean,
  onProgress: (step: string) => void = () => {},
): Promise<FleetBench> {
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

  onProgress("the 5-seed x 4-strategy table on one and two threads");
  // The first tables on two threads start the workers: at 200 devices the third is warm.
  const threads = [await threadsRow(200, 3, 7, 3), await threadsRow(2000, 1, 3, 2)];
  return {
    experimentMs: Math.round(experimentMs * 10) / 10,
    experimentClosedMs: Math.round(experimentClosedMs * 10) / 10,
    contentionMs: Math.round(contentionMs),
    coldExperimentMs: Math.round(coldExperimentMs * 10) / 10,
    realTimeRatio: experimentMs / virtualMs,
    ...scaleFigures(quick, onProgress),
    threads,
  };
}

/** The sizes' rows, then `again`'s. */
const scaleTable = (rows: ScaleRow[], again: ScaleRow) => {
  const head = [
    "devices",
    "wall s",
    "cpu s",
    "device-s/s",
    "devices/s",
    "µs/device-s",
    "cpu µs/device-s",
    "peak RSS MB",
    "B/device",
  ];
  const cells = [...rows, again].map((r) => [
    r === again ? `${r.devices.toLocaleString("en")} again` : r.devices.toLocaleString("en"),
    (r.wallMs / 1000).toFixed(1),
    (r.cpuMs / 1000).toFixed(1),
    `${r.deviceSecondsPerSecond}`,
    `${r.devicesPerSecond}`,
    r.usPerDeviceSecond.toFixed(2),
    r.cpuUsPerDeviceSecond.toFixed(2),
    // The process's peak so far, the largest size's: nothing of this row's own.
    r === again ? "" : `${r.peakRssMb}`,
    r === again ? "" : `${r.bytesPerDevice}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  return [head, ...cells].map((c) => "  " + c.map((x, i) => x.padStart(widths[i])).join("  ")).join("\n");
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      json: { type: "boolean", default: false },
      quick: { type: "boolean", default: false },
      chart: { type: "string" },
    },
  });
  // Measured as the CLI runs a fleet this large: with huge pages.
  const relaunched = inHugePages(values.quick ? QUICK_SIZES[QUICK_SIZES.length - 1] : MILLION);
  if (relaunched) process.exit(await relaunched);
  const b = await benchFleet(values.quick!, (step) => process.stderr.write(`bench:fleet: ${step}\n`));
  if (values.chart) writeFileSync(values.chart, await renderSvg(speedSpec(b, SEED)));
  if (values.json) {
    console.log(JSON.stringify(b, null, 2));
  } else {
    console.log(
      `fleet experiment (200 devices, open arrivals, A-D, 30 s, seed ${SEED}): ${b.experimentMs} ms warm (goal <= 100), ${b.coldExperimentMs} ms cold`,
    );
    console.log(`  closed loop: ${b.experimentClosedMs} ms warm`);
    console.log(`contention (100 clients, 100 runs, 5 strategies): ${b.contentionMs} ms`);
    console.log(
      `  ${b.realTimeRatio.toExponential(2)} of real time (${Math.round(1 / b.realTimeRatio)}x faster)`,
    );
    for (const t of b.threads) {
      console.log(
        `5 seeds x 4 strategies, ${t.devices} devices, warm: ${t.oneThreadMs} ms on one thread, ${t.twoThreadsMs} ms on two (${t.ratio}x, ${t.ratioRange.join(" to ")} in ${t.pairs} pairs, goal <= 0.6)`,
      );
      console.log(
        `  cold (whole CLI process): ${t.coldOneThreadMs} ms on one thread, ${t.coldTwoThreadsMs} ms on two (${t.coldRatio}x, ${t.coldPairs} pairs)`,
      );
    }
    console.log(`strategy C, seed ${SEED}, 30 s of virtual time, by fleet size:`);
    console.log(scaleTable(b.scale, b.again));
    const last = b.scale[b.scale.length - 1];
    console.log(
      `  cost per device-second, ${b.costGrowthAt.toLocaleString("en")} vs 1,000 devices: ${b.costGrowth.toFixed(2)}x of wall time, ${b.cpuCostGrowth.toFixed(2)}x of CPU time (goal <= ${GROWTH_GOAL});`,
    );
    console.log(
      `    against 1,000 devices again after it: ${b.costGrowthAgain.toFixed(2)}x of wall time, ${b.cpuCostGrowthAgain.toFixed(2)}x of CPU time`,
    );
    const f = b.memoryFloor;
    const touches = f.bySize.map((p) => `${p.touchNs} ns among ${p.devices.toLocaleString("en")}`);
    console.log(
      `  the memory floor: a random touch of a state block took ${touches.join(", ")}; at ${f.deviceEventsPerDeviceSecond} device events per device-second, no growth below ${f.growth.toFixed(2)}x here (${f.bySize[f.bySize.length - 1].usPerDeviceSecond} µs per device-second)`,
    );
    console.log(
      `  ${last.devices.toLocaleString("en")} devices: ${(last.wallMs / 1000).toFixed(1)} s wall (goal <= 120 for 1,000,000), peak RSS ${last.peakRssMb} MB (goal <= 4096)`,
    );
  }
}
