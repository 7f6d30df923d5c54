// Instructions per call of the module compiled ahead of time (wasm2c + gcc -O2, the host
// build), counted by valgrind's callgrind: deterministic, unlike the machine's clock.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WASM_PATH } from "../host/library/src/tickretry.js";

const OUT = "build/bench";
const RUNTIME = "/usr/share/wabt/wasm2c";

function build(): string {
  mkdirSync(OUT, { recursive: true });
  execFileSync("wasm2c", [WASM_PATH, "-n", "tickretry", "-o", join(OUT, "tickretry.c")]);
  const exe = join(OUT, "poll_cost");
  const sources = ["bench/native/poll_cost.c", join(OUT, "tickretry.c"), join(RUNTIME, "wasm-rt-impl.c")];
  execFileSync("gcc", [
    "-O2",
    "-g",
    `-I${OUT}`,
    "-Iboards/tickretry",
    `-I${RUNTIME}`,
    ...sources,
    "-lm",
    "-o",
    exe,
  ]);
  return exe;
}

/** bench/native/api_cost.c over the wasm2c backend as boards build it (bounds checks in
 * code, the trap guard around every call): the C API's cost, where the figures above
 * count the module's functions alone. README.md compares it with the wasm3 backend. */
function buildApi(): string {
  mkdirSync(OUT, { recursive: true });
  const w2c = join(OUT, "api");
  mkdirSync(w2c, { recursive: true });
  execFileSync("wasm2c", [WASM_PATH, "-n", "tickretry", "-o", join(w2c, "tickretry_w2c.c")]);
  const exe = join(OUT, "api_cost");
  const runtime = "/usr/src/wasm2c";
  const sources = [
    "bench/native/api_cost.c",
    "boards/tickretry/tickretry_wasm2c.c",
    "boards/tickretry/tickretry_failure.c",
    "boards/tickretry/tickretry_image.c",
    join(w2c, "tickretry_w2c.c"),
    join(runtime, "wasm-rt-impl.c"),
  ];
  const flags = [
    "-O2",
    "-g",
    "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0",
    "-DTICKRETRY_BACKEND_WASM2C=1",
    "-Iboards/tickretry",
    `-I${w2c}`,
    `-I${runtime}`,
  ];
  execFileSync("gcc", [...flags, ...sources, "-o", exe]);
  return exe;
}

/** Inclusive instructions of `fn` per call, collected only inside `phase`. */
function perCall(exe: string, mode: string, phase: string, fn: string): number {
  const file = join(OUT, `callgrind.${mode}.out`);
  const calls = Number(
    execFileSync(
      "valgrind",
      ["--tool=callgrind", `--callgrind-out-file=${file}`, `--toggle-collect=${phase}`, exe, mode],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      },
    ).trim(),
  );
  const annotated = execFileSync("callgrind_annotate", ["--inclusive=yes", file], { encoding: "utf8" });
  const line = annotated.split("\n").find((l) => l.includes(`${fn} `) || l.endsWith(fn));
  if (!line || !calls)
    throw new Error(`callgrind: no ${fn} in ${file}\n${readFileSync(file, "utf8").slice(0, 200)}`);
  return Number(line.trim().split(/\s+/)[0].replace(/,/g, "")) / calls;
}

export interface CallgrindFigures {
  idlePollInstr: number;
  idlePoll16Instr: number;
  reportRetryInstr: number;
  apiNoopInstr: number;
  apiIdlePollInstr: number;
  apiIdlePoll16Instr: number;
  apiReportRetryInstr: number;
}

/** Builds the wasm2c bench driver and counts instructions per idle poll and per report. */
export function measureInstructions(): CallgrindFigures {
  const exe = build();
  const api = buildApi();
  return {
    idlePollInstr: perCall(exe, "idle", "idle_poll_phase", "Z_tickretryZ_poll"),
    idlePoll16Instr: perCall(exe, "idle16", "idle_poll_phase", "Z_tickretryZ_poll"),
    reportRetryInstr: perCall(exe, "retry", "report_retry_phase", "Z_tickretryZ_report"),
    apiNoopInstr: perCall(api, "noop", "noop_phase", "tickretry_abi_version"),
    apiIdlePollInstr: perCall(api, "idle", "idle_poll_phase", "tickretry_poll"),
    apiIdlePoll16Instr: perCall(api, "idle16", "idle_poll_phase", "tickretry_poll"),
    apiReportRetryInstr: perCall(api, "retry", "report_retry_phase", "tickretry_report"),
  };
}
