// docs/ABI.md draws the module's linear memory by hand (state block, restore's scratch
// record, image area, the image's field table, the globals): this holds each figure there
// to the release build the tests load, so a change of layout cannot leave the page behind.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { WASM_PATH } from "../../host/library/src/tickretry.js";
import { Limit } from "../../host/library/src/generated/abi.js";

const doc = readFileSync(new URL("../../docs/ABI.md", import.meta.url), "utf8").replace(/\s+/g, " ");
const wat = readFileSync(WASM_PATH.replace(/\.wasm$/, ".wat"), "utf8");
const { exports } = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(WASM_PATH)));
const call = (name: string) => (exports[name] as () => number)() >>> 0;

/** The release build's data segments: offset and length (escapes count one byte). */
const segments = [...wat.matchAll(/\(data \$\d+ \(i32\.const (\d+)\) "((?:[^"\\]|\\.)*)"\)/g)].map(
  ([, at, body]) => ({ at: Number(at), bytes: body.replace(/\\[0-9a-f]{2}|\\./g, "x").length }),
);
const stateStart = call("stateAddress");
const stateEnd = stateStart + call("stateBytes");
const image = call("imageAddress");
const table = segments[0].at;
const tableEnd = segments[segments.length - 1].at + segments[segments.length - 1].bytes;

/** The number the page gives where N stands in `pattern` (a regular expression's source). */
function said(pattern: string): number {
  const match = doc.match(new RegExp(pattern.replace("N", "(\\d+)")));
  expect(match, `docs/ABI.md no longer matches /${pattern}/`).not.toBeNull();
  return Number(match![1]);
}

test("the state block, the scratch record and the image area are where the page says", () => {
  expect(said("bytes N to \\d+ hold the state block")).toBe(stateStart);
  expect(said("bytes \\d+ to N hold the state block")).toBe(stateEnd);
  expect(said("bytes N to \\d+ the one record `restore` checks")).toBe(stateEnd);
  expect(said("bytes \\d+ to N the one record `restore` checks")).toBe(image);
  expect(said("N to \\d+ the image area")).toBe(image);
  expect(said("\\d+ to N the image area")).toBe(table);
});

test("the field table's bytes and segments are the build's", () => {
  expect(said("a N-byte read-only table")).toBe(tableEnd - table);
  expect(said("table at N to \\d+")).toBe(table);
  expect(said("table at \\d+ to N")).toBe(tableEnd);
  const count = ["no", "one", "two", "three"][segments.length];
  expect(doc).toContain(`held in ${count} active data segments`);
  expect(said("\\(N bytes at \\d+, \\d+ at \\d+")).toBe(segments[0].bytes);
  expect(said("\\(\\d+ bytes at N, \\d+ at \\d+")).toBe(segments[0].at);
  expect(said("\\(\\d+ bytes at \\d+, N at \\d+")).toBe(segments[1].bytes);
  expect(said("\\(\\d+ bytes at \\d+, \\d+ at N")).toBe(segments[1].at);
});

test("the globals are as many as the page counts", () => {
  const globals = wat.match(/^ \(global \$\S+ \(mut i32\)/gm) ?? [];
  expect(said("plus N i32 globals")).toBe(globals.length);
});

// wasm3 allocates the whole limit on the device's heap, so it is the highest byte rounded up
// to 256 (assembly/constants.json says so), within the 4 KiB memory budget.
test("MEMORY_LIMIT is the highest byte rounded up to 256, as the page says", () => {
  expect(said("the highest byte, N, rounded up")).toBe(tableEnd);
  expect(said("`MEMORY_LIMIT` \\(N: the highest byte")).toBe(Limit.MEMORY_LIMIT);
  expect(Limit.MEMORY_LIMIT).toBe(Math.ceil(tableEnd / 256) * 256);
  expect(Limit.MEMORY_LIMIT).toBeLessThanOrEqual(4096);
});
