// The rows of `npm run bench`'s table, one list for the console and for
// docs/performance.md: a heading (no value), or a figure with its goal.
import type { CallgrindFigures } from "./callgrind.js";
import type { DeviceBench } from "./device.js";
import type { FleetBench } from "./fleet.js";
import { FLASH_BUILDS, type FlashLifeFigures } from "./flash-life.js";
import type { HostileFigures } from "./hostile-upstream.js";
import type { ModuleFigures } from "./module.js";
import { GROWTH_GOAL } from "./speed-chart.js";

export interface Figures extends ModuleFigures, CallgrindFigures, FlashLifeFigures {
  crossing: Pick<ModuleFigures, "noopCallNs" | "idlePollNs" | "idlePoll16Ns">;
  device: DeviceBench;
  hostile: HostileFigures;
  fleet: FleetBench;
}

export interface Row {
  name: string;
  /** Absent on a heading. */
  value?: (f: Figures) => string;
  goal?: string;
}

const ratio = (a: number, b: number) => (a / b).toFixed(2);
const both = (b: DeviceBench, k: keyof DeviceBench["healthy"]) => `${b.healthy[k]} / ${b.outage[k]}`;

export const ROWS: Row[] = [
  { name: "module" },
  { name: "wasmBytes", value: (f) => `${f.wasmBytes}`, goal: "<= 6656" },
  { name: "imageBytes1 (save: 1 operation, 1 policy)", value: (f) => `${f.imageBytes1}`, goal: "<= 160" },
  {
    name: "imageBytes16 (save: 16 operations, 8 policies)",
    value: (f) => `${f.imageBytes16}`,
    goal: "<= 1024",
  },
  {
    name: "memoryBytes (state, measured)",
    value: (f) => `${f.memoryBytes} (bytes ${f.highestByte - f.memoryBytes} to ${f.highestByte})`,
    goal: "<= 4096 (stretch 2048)",
  },
  { name: "under V8" },
  { name: "noopCallNs (call-boundary floor)", value: (f) => f.noopCallNs.toFixed(2) },
  { name: "idlePollNs", value: (f) => f.idlePollNs.toFixed(2) },
  { name: "idlePoll16Ns", value: (f) => f.idlePoll16Ns.toFixed(2) },
  { name: "reportRetryNs", value: (f) => f.reportRetryNs.toFixed(1) },
  { name: "idlePollNs / noopCallNs", value: (f) => ratio(f.idlePollNs, f.noopCallNs), goal: "<= 2" },
  { name: "idlePoll16Ns / idlePollNs", value: (f) => ratio(f.idlePoll16Ns, f.idlePollNs), goal: "<= 1.2" },
  { name: "every call crossing the boundary (no wrapper inlining)" },
  {
    name: "noopCallNs / idlePollNs / idlePoll16Ns",
    value: ({ crossing: c }) =>
      `${c.noopCallNs.toFixed(2)} / ${c.idlePollNs.toFixed(2)} / ${c.idlePoll16Ns.toFixed(2)}`,
  },
  {
    name: "idlePollNs / noopCallNs, crossing",
    value: ({ crossing: c }) => ratio(c.idlePollNs, c.noopCallNs),
    goal: "<= 2",
  },
  { name: "ahead of time (wasm2c, gcc -O2, x86-64)" },
  { name: "idlePollInstr", value: (f) => `${f.idlePollInstr}`, goal: "< 40" },
  { name: "idlePoll16Instr", value: (f) => `${f.idlePoll16Instr}` },
  { name: "reportRetryInstr", value: (f) => f.reportRetryInstr.toFixed(0) },
  { name: "through the C API, wasm2c backend as boards build it (bounds checks, trap guard)" },
  {
    name: "apiNoopInstr / apiIdlePollInstr / apiIdlePoll16Instr / apiReportRetryInstr",
    value: (f) =>
      `${f.apiNoopInstr} / ${f.apiIdlePollInstr} / ${f.apiIdlePoll16Instr} / ` +
      f.apiReportRetryInstr.toFixed(0),
  },
  { name: "device (healthy / outage)" },
  {
    name: "page p50 / p99 / max (ms)",
    value: ({ device: d }) => `${both(d, "pageP50Ms")}; ${both(d, "pageP99Ms")}; ${both(d, "pageMaxMs")}`,
  },
  {
    name: "page p99, outage / healthy",
    value: ({ device: d }) => ratio(d.outage.pageP99Ms, d.healthy.pageP99Ms),
    goal: "<= 1.5",
  },
  {
    name: "page p99 over MQTT, broker down / healthy",
    value: ({ device: d }) => ratio(d.mqtt.brokerDown.pageP99Ms, d.mqtt.healthy.pageP99Ms),
    goal: "<= 1.5",
  },
  { name: "loop max gap (ms)", value: ({ device: d }) => both(d, "loopMaxGapMs"), goal: "< 20" },
  {
    name: "longest state-file write so far (ms)",
    value: ({ device: d }) => both(d, "maxWriteMs"),
    goal: "(the disk's)",
  },
  {
    name: "empty loop max gap (ms), same time",
    value: ({ device: d }) => both(d, "baselineMaxGapMs"),
    goal: "(the machine's own)",
  },
  { name: "firmware flash life (boards/app on this machine, a day's NVS writes, nvs-wear.ts's model)" },
  ...FLASH_BUILDS.map(([build], i): Row => ({
    name: `years: ${build}`,
    value: ({ flashLife: f }) =>
      `${f[i].years.toFixed(1)} (${f[i].wakesPerDay} wakes, ${f[i].nvsWritesPerDay} NVS writes a day)`,
    goal: ">= 10",
  })),
  { name: "device against an endless upstream (bench/hostile-upstream.ts)" },
  {
    name: "device CPU share, every attempt cut off at MAX_ANSWER_BYTES",
    value: ({ hostile: h }) => `${h.cpuShare} over ${h.seconds} s`,
    goal: "< 0.5",
  },
  {
    name: "connections; most one read (bytes); upstream sockets took (MB)",
    value: ({ hostile: h }) => `${h.connections}; ${h.maxReadBytes}; ${h.upstreamMb}`,
    goal: "(kernel buffers)",
  },
  { name: "fleet" },
  {
    name: "200 devices, open arrivals, A-D, 30 s, one seed (ms)",
    value: ({ fleet }) => `${fleet.experimentMs}`,
    goal: "<= 100",
  },
  { name: "the same, closed loop (ms)", value: ({ fleet }) => `${fleet.experimentClosedMs}` },
  {
    name: "contention, 100 clients, 100 runs, 5 strategies (ms)",
    value: ({ fleet }) => `${fleet.contentionMs}`,
    goal: "< 10000",
  },
  { name: "realTimeRatio", value: ({ fleet }) => fleet.realTimeRatio.toExponential(2) },
  {
    name: "device-seconds per second, by fleet size",
    value: ({ fleet }) =>
      `${fleet.scale.map((r) => r.devices).join("/")}: ${fleet.scale.map((r) => r.deviceSecondsPerSecond).join(" / ")}`,
  },
  {
    name: "cost per device-second, largest vs 1000",
    value: ({ fleet }) =>
      `${fleet.costGrowth.toFixed(2)} wall, ${fleet.cpuCostGrowth.toFixed(2)} CPU (${fleet.costGrowthAt} devices); against 1000 again after it ${fleet.costGrowthAgain.toFixed(2)} wall, ${fleet.cpuCostGrowthAgain.toFixed(2)} CPU`,
    goal: `<= ${GROWTH_GOAL}`,
  },
  {
    name: "the same, the least this machine's memory allows (bench/memory-floor.ts)",
    value: ({ fleet: { memoryFloor: f } }) =>
      `${f.growth.toFixed(2)} (a random touch ${f.bySize.map((p) => p.touchNs).join(" / ")} ns, ${f.deviceEventsPerDeviceSecond} device events per device-second)`,
    goal: "(the machine's)",
  },
  {
    name: "5 seeds x 4 strategies, two threads / one (200; 2000 devices)",
    value: ({ fleet }) =>
      fleet.threads
        .map((t) => `${t.twoThreadsMs} / ${t.oneThreadMs} ms = ${t.ratio} warm, ${t.coldRatio} cold CLI`)
        .join("; "),
    goal: "<= 0.6",
  },
  {
    name: "peak RSS at the largest fleet (MB)",
    value: ({ fleet }) => `${fleet.scale[fleet.scale.length - 1].peakRssMb}`,
  },
];

/** The console table: headings on a line of their own, figures aligned. */
export function formatConsole(f: Figures): string {
  const values = ROWS.map((r) => r.value?.(f) ?? "");
  const w = Math.max(...ROWS.map((r) => r.name.length));
  const v = Math.max(...values.map((s) => s.length));
  return ROWS.map((r, i) =>
    r.value ? `  ${r.name.padEnd(w)}  ${values[i].padEnd(v)}  ${r.goal ?? ""}`.trimEnd() : `\n${r.name}`,
  ).join("\n");
}

/** docs/performance.md's table: a heading row in bold, then its figures. */
export function formatMarkdown(f: Figures): string {
  const lines = ["| figure | measured | goal |", "| --- | ---: | --- |"];
  for (const r of ROWS) {
    lines.push(r.value ? `| ${r.name} | ${r.value(f)} | ${r.goal ?? ""} |` : `| **${r.name}** | | |`);
  }
  return lines.join("\n");
}
