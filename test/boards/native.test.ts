// The C side against V8: test/boards/scenarios.c runs the scenarios of
// test/boards/scenarios.json through the tickretry loop over the wasm2c backend, built by
// gcc for this machine, by riscv64-unknown-elf-gcc + picolibc for RV32IMC (run under
// qemu-system-riscv32) and by xtensa-lx106-elf-gcc + picolibc for Xtensa LX106 (run
// under qemu-system-xtensa); every trace must equal, byte for byte, the trace
// test/fixtures/scenarios.ts prints for the same scenarios with the TypeScript loop
// (host/library/src/loop.ts, run by host/library/src/driver.ts) under V8, event by event and
// pass by pass. Beside
// that: the wasm3 backend against test/boards/wasm3-shim, the wasm2c backend's trap
// guard, valgrind, and the RV32 and Xtensa footprints of the tickretry loop
// (boards/README.md).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { makeBoards, run, runTsx } from "../helpers/command.js";
import { loadScenarios, traceScenarios } from "../fixtures/scenarios.js";
import { instantiate, WASM_PATH } from "../../host/library/src/tickretry.js";
import { Counter } from "../../host/library/src/generated/abi.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const build = (path: string) => `${root}build/${path}`;

type Size = { text: number; data: number; bss: number };

/** text/data/bss of an ELF, from binutils size's Berkeley format. */
function sizeOf(elf: string, size = "riscv64-unknown-elf-size"): Size {
  const [text, data, bss] = run(size, [elf]).split("\n")[1].trim().split(/\s+/).map(Number);
  return { text, data, bss };
}

/** Runs build/rv32/<name>.elf under QEMU and returns what it wrote through semihosting. */
function runRv32(name: string): string {
  // Semihosting output goes to a file of its own, apart from QEMU's messages.
  const outPath = build(`rv32/${name}.out`);
  rmSync(outPath, { force: true });
  run("timeout", [
    "60",
    "qemu-system-riscv32",
    ...["-machine", "virt", "-bios", "none", "-nographic", "-monitor", "none", "-serial", "none"],
    ...["-chardev", `file,id=out,path=${outPath}`],
    ...["-semihosting-config", "enable=on,target=native,chardev=out"],
    ...["-kernel", build(`rv32/${name}.elf`)],
  ]);
  return readFileSync(outPath, "utf8");
}

/** Runs build/xtensa/<name>.elf on QEMU's Xtensa sim machine: semihosting (simcall)
 * writes to QEMU's own stdout, and the program's exit status is QEMU's. */
function runXtensa(name: string): string {
  return run("timeout", [
    "60",
    "qemu-system-xtensa",
    ...["-M", "sim", "-cpu", "lx106", "-semihosting", "-nographic", "-monitor", "none"],
    ...["-kernel", build(`xtensa/${name}.elf`)],
  ]);
}

/** build/native/<name> prints `lines` (each ending in a newline), and so does the same
 * program under each emulator given. */
function printsEverywhere(name: string, lines: string[], ...emulators: ((name: string) => string)[]) {
  const expected = [...lines, ""].join("\n");
  expect(run(build(`native/${name}`), [])).toBe(expected);
  for (const emulate of emulators) expect(emulate(name)).toBe(expected);
}

const minus = (a: Size, b: Size): Size => ({
  text: a.text - b.text,
  data: a.data - b.data,
  bss: a.bss - b.bss,
});
const show = (s: Size) => `text ${s.text} data ${s.data} bss ${s.bss}`;

let v8Trace = "";

beforeAll(() => {
  if (!existsSync(WASM_PATH))
    throw new Error("host/library/build/tickretry.wasm is missing: run npm run build first");
  v8Trace = traceScenarios(instantiate(), loadScenarios());
  makeBoards("all");
}, 120_000);

describe("the C side", () => {
  test("the embedded module header holds the current host/library/build/tickretry.wasm", () => {
    runTsx("scripts/embed/module.ts", "--check");
  });

  test("the embedded module is stored once: every file that includes its header refers to one definition", () => {
    const symbol = (object: string) =>
      run("nm", [build(object)])
        .split("\n")
        .filter((line) => line.endsWith(" tickretry_wasm"))
        .map((line) => line.trim().split(/\s+/).at(-2));
    expect(symbol("native/tickretry_module.o")).toEqual(["R"]);
    expect(symbol("native/wasm3/tickretry_wasm3.o")).toEqual(["U"]);
    expect(symbol("native/wasm3/wasm3_shim.o")).toEqual(["U"]);
  });

  test("the scenarios cover what the differential test is for", () => {
    expect(v8Trace).toMatch(/TRANSIENT -> OK\n(.*\n)*?.* SUCCESS -> OK\n.* end h=\d+ SUCCEEDED/); // fail, then succeed
    // a start either side of the wrap (the first timed out across it)
    expect(v8Trace).toMatch(/\n429496\d{4} start .*\n(\d+ (pass|timeout) .*\n)+\d{1,4} start /);
    expect(v8Trace).toMatch(/\n\d+ timeout h=\d+ a=\d+\n/); // an attempt the module timed out
    expect(v8Trace).toMatch(/\n\d+ end .*\n\d+ start /); // one pass ends an operation and starts another's attempt
    expect(v8Trace).toMatch(/ -> STALE_REPORT\n/); // a stale report
    expect(v8Trace).toMatch(/ BUDGET after /);
    expect(v8Trace).toMatch(/ DEADLINE after /);
    expect(v8Trace).toMatch(/counters( \d+){6} [1-9]/); // a clock fault
    // save and restore into a fresh instance: answers still count; a deep sleep's elapsed
    // time; a reboot that loses the attempt in flight, retried or ended AMBIGUOUS
    expect(v8Trace).toMatch(
      / restore bytes=\d+ crc=[0-9a-f]{8} elapsed=0 lost=0 -> 0\n(.*\n)*?.* SUCCESS -> OK\n/,
    );
    expect(v8Trace).toMatch(/ restore bytes=\d+ crc=[0-9a-f]{8} elapsed=6000 lost=1 -> 0\n/);
    expect(v8Trace).toMatch(
      / restore bytes=\d+ crc=[0-9a-f]{8} elapsed=\d+ lost=1 -> 0\n\d+ start h=\d+ a=2\n/,
    );
    expect(v8Trace).toMatch(
      / restore bytes=\d+ crc=[0-9a-f]{8} elapsed=0 lost=1 -> 0\n\d+ end h=\d+ AMBIGUOUS after 1\n/,
    );
  });

  test("the scenarios cover sessions, drops, link-up kicks and breakers", () => {
    // a session comes UP, is dropped, comes UP again (a reconnect), and a drop while it is
    // not UP is refused; a PERMANENT connect attempt ends it
    expect(v8Trace).toMatch(/ report h=(\d+) a=\d+ SUCCESS -> OK\n\d+ up h=\1 a=\d+\n/);
    expect(v8Trace).toMatch(/ up h=(\d+) a=\d+\n(.*\n)*?\d+ drop h=\1 -> OK\n(.*\n)*?\d+ up h=\1 /);
    expect(v8Trace).toContain(" -> NOT_UP\n");
    expect(v8Trace).toMatch(
      / drop h=(\d+) -> OK\n(.*\n)*?.* report h=\1 a=\d+ PERMANENT -> OK\n.* end h=\1 PERMANENT/,
    );
    // a module swap keeps a session UP (the drop after it is OK); a reboot drops it
    expect(v8Trace).toMatch(
      / restore bytes=\d+ crc=[0-9a-f]{8} elapsed=0 lost=0 -> 0\n\d+ drop h=\d+ -> OK\n/,
    );
    expect(v8Trace).toMatch(
      new RegExp(
        ` restore bytes=\\d+ crc=[0-9a-f]{8} elapsed=\\d+ lost=1 -> 0\\n\\d+ drop h=\\d+ -> NOT_UP\\n`,
      ),
    );
    // one pass in the documented order: the report that brings a session UP, then the
    // loss of its connection, then the link's return, which kicks it at once
    expect(v8Trace).toMatch(
      / report h=(\d+) a=\d+ SUCCESS -> OK\n\d+ up h=\1 a=\d+\n\d+ drop h=\1 -> OK\n\d+ link-up -> OK\n\d+ start h=\1 /,
    );
    // a link-up kicks waiting operations (the module counts them)
    const kicks = v8Trace
      .split("\n== ")
      .filter((scenario) => scenario.includes(" link-up -> OK\n"))
      .map((scenario) =>
        Number(/\ncounters((?: \d+)+) tokens/.exec(scenario)![1].trim().split(" ")[Counter.KICKS]),
      );
    expect(Math.max(...kicks)).toBeGreaterThan(0);
    // a breaker opens, holds, lets one probe out, and closes on its success; a failed probe
    // opens it again; a link-up ends a break
    expect(v8Trace).toMatch(
      / breaker(\d)=OPEN\b.*\n(.*\n)*?.* breaker\1=PROBING\b.*\n(.*\n)*?.* breaker\1=CLOSED\b/,
    );
    expect(v8Trace).toMatch(
      / breaker(\d)=PROBING\b.*\n(\d+ (?!pass).*\n)*\d+ pass -> \d+.* breaker\1=OPEN\b/,
    );
    expect(v8Trace).toMatch(
      / breaker(\d)=OPEN\b.*\n\d+ link-up -> OK\n(\d+ (?!pass).*\n)*\d+ pass -> \d+.* breaker\1=(HALF_OPEN|PROBING)\b/,
    );
  });

  test("gcc on this machine: the trace equals V8's", () => {
    const native = run(build("native/scenarios"), []);
    expect(native).toBe(v8Trace);
  });

  test("RV32IMC under qemu-system-riscv32: the trace equals V8's", () => {
    expect(runRv32("scenarios")).toBe(v8Trace);
  });

  test("Xtensa LX106 under qemu-system-xtensa: the trace equals V8's", () => {
    expect(runXtensa("scenarios")).toBe(v8Trace);
  });

  test("tickretry_save and tickretry_restore refuse at their edges and change nothing, here and on Xtensa", () => {
    const lines = [
      "before 0: 2/1 1/0 begun 2 started 1",
      "save into 8 bytes -14: 2/1 1/0 begun 2 started 1",
      "saved fits the area",
      "a flipped bit -17: 2/1 1/0 begun 2 started 1",
      "beyond the area -14: 2/1 1/0 begun 2 started 1",
      "the same image 0: 2/1 1/0 begun 2 started 1",
      "fresh, before -2: -3/-3 -3/-3 begun -2 started -2",
      "fresh, restored 0: 2/1 1/0 begun 2 started 1",
    ];
    printsEverywhere("image", lines, runXtensa);
  });

  test("a HAL with session hooks but no `sessions` stops the loop at once; with it, they are asked", () => {
    printsEverywhere("loop_check", [
      "link_up without sessions: fault -200 pass 0 link-up events 0",
      "link_up with sessions: fault 0 pass 4294967295 link-up events 1",
    ]);
  });

  test("the division and 64-bit multiply helpers the LX106 build supplies agree with this machine's", () => {
    printsEverywhere("libgcc_check", ["libgcc ok"]);
  });

  test("a trap comes back as TICKRETRY_ENGINE_FAILED and sticks, on this machine and on RV32", () => {
    const lines = [
      "open 0 init 0",
      "poll -100 error tickretry_wasm2c: tickretry_poll: Z_tickretryZ_poll: Unreachable instruction executed",
      "after: state -100 nextDue 0",
      "loop: pass 0 fault -100",
      "reopened 0 error (none)",
    ];
    printsEverywhere("trap", lines, runRv32);
  });

  test("the wasm3 backend over wasm3-shim (the module compiled by wasm2c): the trace equals V8's", () => {
    const native = run(build("native/scenarios-wasm3-shim"), []);
    expect(native).toBe(v8Trace);
  });

  test("the wasm3 backend carries the state across a module swap, and across a refused one", () => {
    expect(run(build("native/swap-wasm3-shim"), [])).toBe(
      [
        "before 0 states 2 1 attempts 1 0 ids consecutive 1 refusal (none)",
        "swapped 0 states 2 1 attempts 1 0 ids consecutive 1 refusal (none)",
        "report 0",
        "refused -100 states 3 1 attempts 1 0 ids consecutive 1 refusal tickretry_wasm3: tickretry_wasm3_open: " +
          "m3_ParseModule(environment, &module, wasm, length): shim: not a module compiled into this build (it runs only those)",
        "poll 17 ended 16 changes moved 1",
        "",
      ].join("\n"),
    );
  });

  test("the wasm3 backend says where it failed", () => {
    const result = spawnSync(build("native/scenarios-wasm3-shim"), [], {
      encoding: "utf8",
      env: { ...process.env, TICKRETRY_SHIM_MISSING: "report" },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "tickretry_wasm3: tickretry_open: m3_FindFunction: function lookup failed (report)",
    );
  });

  test("the wasm2c backend refuses wasm2c's guard-page default at compile time, naming the flag", () => {
    const result = spawnSync(
      "gcc",
      [
        "-fsyntax-only",
        "-DTICKRETRY_BACKEND_WASM2C=1",
        "-Iboards/tickretry",
        `-I${build("wasm2c")}`,
        "-I/usr/src/wasm2c",
        "boards/tickretry/tickretry_wasm2c.c",
      ],
      { cwd: root, encoding: "utf8" },
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("#error");
    expect(result.stderr).toContain("-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0");
  });

  test("the native program is clean under valgrind", () => {
    // "still reachable" counts too: tickretry_close frees what tickretry_open allocated.
    const leaks = ["--leak-check=full", "--show-leak-kinds=all", "--errors-for-leak-kinds=all"];
    run("valgrind", ["-q", "--error-exitcode=1", ...leaks, build("native/scenarios")]);
    run("valgrind", ["-q", "--error-exitcode=1", ...leaks, build("native/scenarios-wasm3-shim")]);
    run("valgrind", ["-q", "--error-exitcode=1", ...leaks, build("native/swap-wasm3-shim")]);
    run("valgrind", ["-q", "--error-exitcode=1", ...leaks, build("native/image")]);
  });

  test("RV32 and Xtensa footprints of the tickretry loop with the wasm2c backend", () => {
    const rv32 = minus(sizeOf(build("rv32/footprint.elf")), sizeOf(build("rv32/baseline.elf")));
    const xtSize = (name: string) => sizeOf(build(`xtensa/${name}.elf`), "xtensa-lx106-elf-size");
    const xtensa = minus(xtSize("footprint"), xtSize("baseline"));
    const xtensaPrintf = minus(xtSize("footprint"), xtSize("baseline-printf"));
    const lines = v8Trace.split("\n").length - 1;
    console.log(
      `tickretry loop + wasm2c backend, over an empty picolibc program: rv32imc ${show(rv32)}; ` +
        `xtensa lx106 ${show(xtensa)} (${show(xtensaPrintf)} over one that links printf, as RV32's ` +
        `semihosting start-up does); trace compared: ${lines} lines, ${v8Trace.length} bytes`,
    );
    // Budgets that catch a regression such as wasm2c's 64 KiB exception buffer surviving
    // --gc-sections; the module's own 64 KiB memory page is heap, not bss.
    for (const net of [rv32, xtensaPrintf]) {
      expect(net.text).toBeLessThan(16 * 1024);
      expect(net.bss).toBeLessThan(2 * 1024);
    }
    // A board without sessions (footprint.c) links neither the loop's session steps nor
    // the module's drop and linkUp; one with them (scenarios.c) does.
    const symbols = (elf: string) => run("riscv64-unknown-elf-nm", [build(`rv32/${elf}.elf`)]);
    for (const name of ["tickretry_loop_sessions", "tickretry_drop", "tickretry_link_up"]) {
      expect(symbols("footprint")).not.toMatch(new RegExp(` ${name}\n`));
      expect(symbols("scenarios")).toMatch(new RegExp(` ${name}\n`));
    }
  });
});
