// Every C and TypeScript block of the docs (test/docs/snippets.ts says which files and how
// a block is marked) is compiled here, so a snippet that drifts from the API fails the
// run: C against the real headers with -Wall -Wextra -Werror (tickretry.h included first;
// a block with a main is linked over the wasm2c backend and run, and so is a firmware, a block
// with setup and loop, on the fake board of fake_board.c), TypeScript type-checked against the
// package's .d.ts, as a user's project sees it (host/library/dist, which `npm test` builds
// first), then run: a block of node:test tests fails the run if one fails, under node:test and
// again under vitest with its import changed as README.md says.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { run } from "../helpers/command.js";
import {
  ROOT,
  asVitest,
  docFiles,
  fileName,
  fileText,
  isFirmware,
  isNodeTest,
  isProgram,
  isSketch,
  snippetsOf,
  type Snippet,
} from "./snippets.js";

const OUT = join(ROOT, "out/snippets");
const all = docFiles().flatMap(snippetsOf);
const checked = all.filter((s) => !isSketch(s));
const c = checked.filter((s) => s.lang === "c");
const ts = checked.filter((s) => s.lang === "ts");
const LIB = join(ROOT, "boards/tickretry");
const W2C = join(OUT, "wasm2c");
const WABT_RT = "/usr/src/wasm2c";
const WARNINGS = ["-std=c11", "-Wall", "-Wextra", "-Werror"];

beforeAll(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(W2C, { recursive: true });
  const exports = Object.keys(await import("../../host/library/dist/index.js"));
  for (const s of checked) writeFileSync(join(OUT, fileName(s)), fileText(s, exports));
});

test("the docs hold C and TypeScript blocks, each marked only with known words", () => {
  expect(c.length).toBeGreaterThanOrEqual(3);
  expect(ts.length).toBeGreaterThanOrEqual(1);
  expect(all.filter((s) => s.marks.some((m) => m !== "sketch")).map((s) => s.where)).toEqual([]);
});

describe("C blocks compile against tickretry.h with -Wall -Wextra -Werror", () => {
  // A fragment (no main) stands for part of a program, whose other parts would use its
  // static functions and tables; a whole program gets no such allowance.
  test.each(c.map((s) => [s.where, s] as [string, Snippet]))("%s", (_, s) => {
    const allowance = isProgram(s) ? [] : ["-Wno-unused-function", "-Wno-unused-const-variable"];
    const flags = [...WARNINGS, ...allowance, "-DTICKRETRY_BACKEND_WASM2C=1", `-I${LIB}`];
    run("gcc", [...flags, "-include", "tickretry.h", "-c", fileName(s), "-o", `${fileName(s)}.o`], OUT);
  });
});

const programs = c.filter((s) => isProgram(s) || isFirmware(s));
describe.runIf(programs.length > 0)("C programs link over the wasm2c backend and run", () => {
  beforeAll(() => {
    run("wasm2c", [
      join(ROOT, "host/library/build/tickretry.wasm"),
      "-n",
      "tickretry",
      "-o",
      join(W2C, "tickretry_w2c.c"),
    ]);
  });
  test.each(programs.map((s) => [s.where, s] as [string, Snippet]))("%s", (_, s) => {
    const exe = join(OUT, fileName(s).replace(/\.c$/, ""));
    const defs = ["-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0", "-DTICKRETRY_BACKEND_WASM2C=1"];
    const sources = ["tickretry_loop.c", "tickretry_wasm2c.c", "tickretry_failure.c", "tickretry_image.c"];
    run("gcc", [
      ...defs,
      "-O1",
      `-I${LIB}`,
      `-I${W2C}`,
      `-I${WABT_RT}`,
      "-include",
      "tickretry.h",
      join(OUT, fileName(s)),
      ...(isFirmware(s) ? [join(import.meta.dirname, "fake_board.c")] : []),
      ...sources.map((f) => join(LIB, f)),
      join(W2C, "tickretry_w2c.c"),
      join(WABT_RT, "wasm-rt-impl.c"),
      "-o",
      exe,
    ]);
    run(exe, []);
  });
});

describe.runIf(ts.length > 0)("TypeScript blocks", () => {
  test("type-check against the package's .d.ts", () => {
    const config = {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      },
      files: ts.map(fileName),
    };
    writeFileSync(join(OUT, "tsconfig.json"), JSON.stringify(config, null, 2));
    run(join(ROOT, "node_modules/.bin/tsc"), ["-p", join(OUT, "tsconfig.json")]);
  });
  test.each(ts.map((s) => [s.where, s] as [string, Snippet]))("%s runs", (_, s) => {
    run(process.execPath, ["--import", "tsx", join(OUT, fileName(s))], OUT);
  });
  const nodeTests = ts.filter(isNodeTest);
  test.runIf(nodeTests.length > 0)("node:test blocks pass under vitest, with vitest's import", () => {
    const dir = join(OUT, "vitest");
    mkdirSync(dir, { recursive: true });
    const files = nodeTests.map((s) => fileName(s).replace(/\.ts$/, ".test.ts"));
    nodeTests.forEach((s, i) => writeFileSync(join(dir, files[i]), asVitest(s)));
    // A config of its own, so the repository's (its include list, its setup) plays no part.
    writeFileSync(join(dir, "vitest.config.mjs"), "export default { test: { include: ['*.test.ts'] } };\n");
    const out = run(
      join(ROOT, "node_modules/.bin/vitest"),
      ["run", "--root", dir, "--reporter", "verbose"],
      dir,
    );
    for (const f of files) expect(out).toContain(f);
  });
});
