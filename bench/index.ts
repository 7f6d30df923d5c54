// `npm run bench`: every benchmark of the project, one table; `--json` prints all figures
// as one JSON object instead. The module is measured here; the device and the fleet each
// in a process of their own (their own JIT state and peak memory). Progress goes to
// stderr, so the JSON on stdout stays clean.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { measureInstructions } from "./callgrind.js";
import type { DeviceBench } from "./device.js";
import type { FleetBench } from "./fleet.js";
import { measureModule, type ModuleFigures } from "./module.js";

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    "device-seconds": { type: "string", default: "30" },
  },
});
const progress = (what: string) => process.stderr.write(`bench: ${what}\n`);

/** Runs one bench script with --json in a child process (node flags first); its progress
 * shows on stderr. */
function child<T>(nodeFlags: string[], script: string, ...args: string[]): T {
  const run = spawnSync(process.execPath, [...nodeFlags, "--import", "tsx", script, "--json", ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (run.status !== 0) throw new Error(`${script} exited ${run.status}`);
  return JSON.parse(run.stdout) as T;
}

const module = measureModule(progress);
// V8 inlines the JS-to-wasm wrapper of a call into the caller's loop, which makes the
// empty export's floor cheaper than a real crossing; measured again with every call
// crossing the boundary, as a host without that JIT step pays it.
progress("the same calls, each crossing the boundary (--no-turbo-inline-js-wasm-calls)");
const crossing = child<ModuleFigures>(["--no-turbo-inline-js-wasm-calls"], "bench/module.ts");
progress("instructions per call (wasm2c + callgrind)");
const instructions = measureInstructions();
progress("the simulated device (bench:device)");
const device = child<DeviceBench>([], "bench/device.ts", "--seconds", values["device-seconds"]!);
progress("the fleet simulator (bench:fleet)");
// The million-device run takes minutes: bench:fleet alone runs it.
const fleet = child<FleetBench>([], "bench/fleet.ts", "--quick");

const figures = {
  ...module,
  ...instructions,
  crossing: {
    noopCallNs: crossing.noopCallNs,
    idlePollNs: crossing.idlePollNs,
    idlePoll16Ns: crossing.idlePoll16Ns,
  },
  device,
  fleet,
};

if (values.json) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const at = (b: DeviceBench, k: keyof DeviceBench["healthy"]) => `${b.healthy[k]} / ${b.outage[k]}`;
  const rows: [string, string, string][] = [
    ["module", "", ""],
    ["wasmBytes", `${figures.wasmBytes}`, "<= 4608"],
    ["imageBytes1 (save: 1 operation, 1 policy)", `${figures.imageBytes1}`, "<= 160"],
    ["imageBytes16 (save: 16 operations, 8 policies)", `${figures.imageBytes16}`, "<= 1024"],
    [
      "memoryBytes (state, measured)",
      `${figures.memoryBytes} (bytes ${figures.highestByte - figures.memoryBytes} to ${figures.highestByte})`,
      "<= 4096 (stretch 2048)",
    ],
    ["under V8", "", ""],
    ["noopCallNs (call-boundary floor)", figures.noopCallNs.toFixed(2), ""],
    ["idlePollNs", figures.idlePollNs.toFixed(2), ""],
    ["idlePoll16Ns", figures.idlePoll16Ns.toFixed(2), ""],
    ["reportRetryNs", figures.reportRetryNs.toFixed(1), ""],
    ["idlePollNs / noopCallNs", ratio(figures.idlePollNs, figures.noopCallNs), "<= 2"],
    ["idlePoll16Ns / idlePollNs", ratio(figures.idlePoll16Ns, figures.idlePollNs), "<= 1.2"],
    ["every call crossing the boundary (no wrapper inlining)", "", ""],
    [
      "noopCallNs / idlePollNs / idlePoll16Ns",
      `${crossing.noopCallNs.toFixed(2)} / ${crossing.idlePollNs.toFixed(2)} / ${crossing.idlePoll16Ns.toFixed(2)}`,
      "",
    ],
    ["idlePollNs / noopCallNs", ratio(crossing.idlePollNs, crossing.noopCallNs), "<= 2"],
    ["ahead of time (wasm2c, gcc -O2, x86-64)", "", ""],
    ["idlePollInstr", `${figures.idlePollInstr}`, "< 100"],
    ["idlePoll16Instr", `${figures.idlePoll16Instr}`, ""],
    ["reportRetryInstr", figures.reportRetryInstr.toFixed(0), ""],
    ["through the C API, wasm2c backend as boards build it (bounds checks, trap guard)", "", ""],
    [
      "apiNoopInstr / apiIdlePollInstr / apiIdlePoll16Instr / apiReportRetryInstr",
      `${figures.apiNoopInstr} / ${figures.apiIdlePollInstr} / ${figures.apiIdlePoll16Instr} / ` +
        figures.apiReportRetryInstr.toFixed(0),
      "",
    ],
    ["device (healthy / outage)", "", ""],
    [
      "page p50 / p99 / max (ms)",
      `${at(device, "pageP50Ms")}; ${at(device, "pageP99Ms")}; ${at(device, "pageMaxMs")}`,
      "",
    ],
    ["page p99, outage / healthy", ratio(device.outage.pageP99Ms, device.healthy.pageP99Ms), "<= 1.5"],
    ["loop max gap (ms)", at(device, "loopMaxGapMs"), "< 20"],
    ["empty loop max gap (ms), same time", at(device, "baselineMaxGapMs"), "(the machine's own)"],
    ["fleet", "", ""],
    ["200 devices, open arrivals, A-D, 30 s, one seed (ms)", `${fleet.experimentMs}`, "< 1000"],
    ["the same, closed loop (ms)", `${fleet.experimentClosedMs}`, ""],
    ["contention, 100 clients, 100 runs, 5 strategies (ms)", `${fleet.contentionMs}`, "< 10000"],
    ["realTimeRatio", fleet.realTimeRatio.toExponential(2), ""],
    [
      `device-seconds per second, ${fleet.scale.map((r) => r.devices).join("/")}`,
      fleet.scale.map((r) => r.deviceSecondsPerSecond).join(" / "),
      "",
    ],
    [`cost per device-second, ${fleet.costGrowthAt} vs 1000`, fleet.costGrowth.toFixed(2), "<= 1.5"],
    [
      `peak RSS with ${fleet.costGrowthAt} devices (MB)`,
      `${fleet.scale[fleet.scale.length - 1].peakRssMb}`,
      "",
    ],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  const v = Math.max(...rows.map((r) => r[1].length));
  for (const [name, value, goal] of rows) {
    console.log(
      value === "" && goal === "" ? `\n${name}` : `  ${name.padEnd(w)}  ${value.padEnd(v)}  ${goal}`,
    );
  }
}
