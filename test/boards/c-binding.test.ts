// The C binding layer is generated: tickretry_abi.h's prototypes, structs and the
// TICKRETRY_EXPORTS X-macro drive both backends and the wasm3 stand-in, so a change to
// the export list in assembly/constants.json needs no hand edit in C. Proved here by changing
// a copy of constants.json (a new policy field, a renamed and retyped parameter, a new
// export), generating the C view from it, compiling a module with that export list by
// wasm2c, and building the differential program over both backends with -Werror,
// without touching a line of C.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { run, runTsx } from "../helpers/command.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const WABT_RT = "/usr/src/wasm2c";
const work = mkdtempSync(join(tmpdir(), "tickretry-c-binding-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Param {
  name: string;
  type: string;
  in?: string;
  doc?: string;
}
interface Export {
  name: string;
  params: Param[];
  result: string;
  doc: string;
  example?: string;
}

/** A module with the given exports: abiVersion answers `version`, the others 0. */
function stubModule(exports: Export[], version: number): string {
  let wat = '(module\n  (memory (export "memory") 1 1)\n';
  for (const e of exports) {
    const params = e.params.length ? ` (param${" i32".repeat(e.params.length)})` : "";
    const body = e.name === "abiVersion" ? `i32.const ${version}` : "i32.const 0";
    wat += `  (func (export "${e.name}")${params} (result i32) ${body})\n`;
  }
  return wat + ")\n";
}

/** constants.json with a field added to a struct, a parameter renamed and retyped, and a new export. */
function changedAbi(): { exports: Export[]; abiVersion: number } {
  const abi = JSON.parse(readFileSync(join(root, "assembly/constants.json"), "utf8"));
  const byName = (name: string): Export => abi.exports.find((e: Export) => e.name === name);
  byName("setPolicy").params.push({ name: "jitterSpread", type: "u32", in: "policy", doc: "new" });
  const retryAfter = byName("report").params.find((p) => p.name === "retryAfter")!;
  retryAfter.name = "retryAfterTicks";
  byName("worstCase").params[0].type = "i32";
  abi.exports.push({
    name: "lateCount",
    params: [{ name: "sinceTick", type: "u32" }],
    result: "u32",
    doc: "new",
    example: "api.lateCount(now); // the late answers since now",
  });
  return abi;
}

/** Compiles the C layer, unedited, over a stub module of `abi`'s exports through wasm2c and
 * through the wasm3 stand-in, with -Wall -Wextra -Werror on our own C. */
function buildBothBackends(abi: { exports: Export[]; abiVersion: number }, lib: string, test: string) {
  const w2c = join(work, "w2c");
  mkdirSync(w2c);
  writeFileSync(join(w2c, "tickretry.wat"), stubModule(abi.exports, abi.abiVersion));
  run("wat2wasm", [join(w2c, "tickretry.wat"), "-o", join(w2c, "tickretry.wasm")]);
  run("wasm2c", [join(w2c, "tickretry.wasm"), "-n", "tickretry", "-o", join(w2c, "tickretry_w2c.c")]);
  runTsx("scripts/gen/scenarios.ts", join(test, "scenarios.h"));

  const flags = ["-O1", "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0", `-I${lib}`, `-I${w2c}`, `-I${WABT_RT}`];
  const own = ["-Wall", "-Wextra", "-Werror"];
  const object = (source: string, extra: string[], warnings: string[]) => {
    const out = join(work, `${source.replace(/[/.]/g, "_")}.o`);
    run("gcc", [...flags, ...extra, ...warnings, "-c", source, "-o", out]);
    return out;
  };
  const generated = [join(w2c, "tickretry_w2c.c"), join(WABT_RT, "wasm-rt-impl.c")].map((s) =>
    object(s, [], ["-w"]),
  );
  const shared = ["scenarios.c"].map((s) => object(join(test, s), [], own));
  shared.push(
    ...[
      "tickretry_loop.c",
      "tickretry_trace.c",
      "tickretry_failure.c",
      "tickretry_image.c",
      "tickretry_module.c",
    ].map((s) => object(join(lib, s), [], own)),
  );
  const wasm2c = object(join(lib, "tickretry_wasm2c.c"), ["-DTICKRETRY_BACKEND_WASM2C=1"], own);
  const shim = [join(lib, "tickretry_wasm3.c"), join(test, "wasm3-shim/wasm3_shim.c")].map((s) =>
    object(s, [`-I${join(test, "wasm3-shim")}`], own),
  );
  run("gcc", [...shared, wasm2c, ...generated, "-o", join(work, "over-wasm2c")]);
  run("gcc", [...shared, ...shim, ...generated, "-o", join(work, "over-wasm3-shim")]);
}

describe("the generated C binding layer", () => {
  test("a changed export list reaches both backends and the wasm3 stand-in with no C edited", () => {
    const abi = changedAbi();
    const lib = join(work, "lib");
    const test = join(work, "test");
    cpSync(join(root, "boards/tickretry"), lib, { recursive: true });
    cpSync(join(root, "test/boards"), test, { recursive: true });
    writeFileSync(join(work, "constants.json"), JSON.stringify(abi));
    runTsx(
      "scripts/gen/abi.ts",
      "--constants",
      join(work, "constants.json"),
      "--c-header",
      join(lib, "generated", "tickretry_abi.h"),
    );
    const header = readFileSync(join(lib, "generated", "tickretry_abi.h"), "utf8").replace(/\s+/g, " ");
    expect(header).toContain("uint32_t jitter_spread; /* new */");
    expect(header).toContain("uint32_t tickretry_late_count(uint32_t since_tick);");
    expect(header).toContain("uint32_t retry_after_ticks, uint32_t now);");
    expect(header).toContain("int32_t tickretry_worst_case(int32_t policy);");
    buildBothBackends(abi, lib, test);
  }, 120_000);

  test("an export in the old format (bare parameter names) is refused with the fix", () => {
    const abi = JSON.parse(readFileSync(join(root, "assembly/constants.json"), "utf8"));
    abi.exports.push({ name: "save", params: ["now"], result: "i32", doc: "old format" });
    writeFileSync(join(work, "old.json"), JSON.stringify(abi));
    expect(() =>
      runTsx("scripts/gen/abi.ts", "--constants", join(work, "old.json"), "--c-header", join(work, "old.h")),
    ).toThrow('export save: parameter 1 must be {"name": ..., "type": "i32" | "u32"}, found "now"');
  });
});
