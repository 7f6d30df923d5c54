// `npm run bench`: every benchmark of the project, one table; `--json` prints all figures
// as one JSON object instead; `--write` also puts the table into docs/performance.md. The module is measured here; the device and the fleet each
// in a process of their own (their own JIT state and peak memory). Progress goes to
// stderr, so the JSON on stdout stays clean.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { measureInstructions } from "./callgrind.js";
import type { DeviceBench } from "./device.js";
import type { FleetBench } from "./fleet.js";
import { measureFlashLife } from "./flash-life.js";
import type { HostileFigures } from "./hostile-upstream.js";
import { measureModule, type ModuleFigures } from "./module.js";
import { writePerformanceDoc } from "./performance-doc.js";
import { formatConsole, type Figures } from "./rows.js";

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    write: { type: "boolean", default: false },
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
progress("the device against an endless upstream");
const hostile = child<HostileFigures>([], "bench/hostile-upstream.ts");
progress("the fleet simulator (bench:fleet)");
// The million-device run takes minutes: bench:fleet alone runs it.
const fleet = child<FleetBench>([], "bench/fleet.ts", "--quick");

const flash = measureFlashLife(progress);

const figures: Figures = {
  ...module,
  ...instructions,
  ...flash,
  crossing: {
    noopCallNs: crossing.noopCallNs,
    idlePollNs: crossing.idlePollNs,
    idlePoll16Ns: crossing.idlePoll16Ns,
  },
  device,
  hostile,
  fleet,
};

if (values.json) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(formatConsole(figures));
}
if (values.write) {
  await writePerformanceDoc(figures);
  progress("wrote docs/performance.md");
}
