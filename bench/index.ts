// `npm run bench`: every benchmark of the project, one table; `--json` prints all figures
// as one JSON object instead. Progress goes to stderr so the JSON stays clean.
import { parseArgs } from "node:util";
import { measureInstructions } from "./callgrind.js";
import { measureModule } from "./module.js";

const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });
const progress = (what: string) => process.stderr.write(`bench: ${what}\n`);

const module = measureModule(progress);
progress("instructions per call (wasm2c + callgrind)");
const instructions = measureInstructions();

const figures = { ...module, ...instructions };

if (values.json) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const rows: [string, string, string][] = [
    ["wasmBytes", `${figures.wasmBytes}`, "<= 4096 (stretch 3072)"],
    [
      "memoryBytes (state, measured)",
      `${figures.memoryBytes} (bytes ${figures.highestByte - figures.memoryBytes} to ${figures.highestByte})`,
      "<= 4096 (stretch 2048)",
    ],
    ["noopCallNs (call-boundary floor)", figures.noopCallNs.toFixed(2), ""],
    ["idlePollNs", figures.idlePollNs.toFixed(2), ""],
    ["idlePoll16Ns", figures.idlePoll16Ns.toFixed(2), ""],
    ["reportRetryNs", figures.reportRetryNs.toFixed(1), ""],
    ["idlePollNs / noopCallNs", ratio(figures.idlePollNs, figures.noopCallNs), "<= 2"],
    ["idlePoll16Ns / idlePollNs", ratio(figures.idlePoll16Ns, figures.idlePollNs), "<= 1.2"],
    ["idlePollInstr (wasm2c, x86-64)", `${figures.idlePollInstr}`, "< 100"],
    ["idlePoll16Instr", `${figures.idlePoll16Instr}`, ""],
    ["reportRetryInstr", figures.reportRetryInstr.toFixed(0), ""],
    ["largest functions (bytes)", figures.largestExports.map((e) => `${e.name} ${e.bytes}`).join(", "), ""],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  const v = Math.max(...rows.map((r) => r[1].length));
  for (const [name, value, goal] of rows) console.log(`${name.padEnd(w)}  ${value.padEnd(v)}  ${goal}`);
}
