// The release binary is fit for wasm3 0.5.0 on a small board: it validates without the
// features wasm3 lacks, imports nothing, has no start function, keeps its state below
// byte MEMORY_LIMIT, and exports exactly the ABI of abi/constants.json.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { Counter, EXPORTS, Limit } from "../../host/library/src/generated/abi.js";
import { measureFootprint } from "../fixtures/footprint.js";
import { WASM_PATH } from "../../host/library/src/tickretry.js";

const objdump = (...args: string[]) =>
  execFileSync("wasm-objdump", [...args, WASM_PATH], { encoding: "utf8" });

describe("release binary", () => {
  test("validates with reference types, SIMD, bulk memory, threads and tail calls off", () => {
    // wabt 1.0.32 leaves threads and tail calls off unless enabled; the others are disabled here.
    const flags = ["--disable-reference-types", "--disable-simd", "--disable-bulk-memory"];
    expect(() => execFileSync("wasm-validate", [...flags, WASM_PATH])).not.toThrow();
  });

  test("has zero imports and no start section", () => {
    const module = new WebAssembly.Module(readFileSync(WASM_PATH));
    expect(WebAssembly.Module.imports(module)).toEqual([]);
    const headers = objdump("-h");
    expect(headers).not.toMatch(/^\s*Import /m);
    expect(headers).not.toMatch(/^\s*Start /m);
    expect(headers).toMatch(/^\s*Code /m);
  });

  test("its data segments, if any, end at or below byte MEMORY_LIMIT", () => {
    const details = objdump("-x");
    const segments = [...details.matchAll(/segment\[\d+\] memory=0 size=(\d+) - init i32=(\d+)/g)];
    // All state is zero-initialised static memory today, so there may be no Data section.
    const declared = Number(/Data\[(\d+)\]/.exec(details)?.[1] ?? 0);
    expect(segments.length).toBe(declared);
    for (const m of segments) expect(Number(m[2]) + Number(m[1])).toBeLessThanOrEqual(Limit.MEMORY_LIMIT);
  });

  test("exports exactly the ABI, with the parameter counts of assembly/constants.json", () => {
    const module = new WebAssembly.Module(readFileSync(WASM_PATH));
    const functions = WebAssembly.Module.exports(module).filter((e) => e.kind === "function");
    expect(functions.map((e) => e.name).sort()).toEqual(Object.keys(EXPORTS).sort());
  });

  test("a full-capacity run writes nothing at or above byte MEMORY_LIMIT", () => {
    const { highestByte, api } = measureFootprint();
    expect(api.counter(Counter.BEGUN)).toBe(32); // 16 saved and restored, then 16 run out
    expect(api.counter(Counter.ATTEMPT_TIMEOUTS)).toBeGreaterThan(0);
    expect(api.counter(Counter.RETRIES_SCHEDULED)).toBeGreaterThan(0);
    expect(highestByte).toBeGreaterThan(0);
    expect(highestByte).toBeLessThan(Limit.MEMORY_LIMIT);
  });
});
