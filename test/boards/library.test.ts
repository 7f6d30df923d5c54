// boards/tickretry as the firmware library it claims to be. PlatformIO, Arduino and ESP-IDF
// do not install here, so this proves what it can: a host program built by gcc from only
// what library.json exports (its source filter and include folders) plus the sources its
// extra script generates for the wasm2c backend runs the differential scenarios and
// prints V8's trace; the same files with the default backend build over wasm3-shim; and
// the three manifests carry the fields their formats require, agree with each other and
// with package.json, and name the same sources.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { run, runTsx } from "../helpers/command.js";
import { loadScenarios, traceScenarios } from "../fixtures/scenarios.js";
import { instantiate } from "../../host/library/src/tickretry.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const lib = join(root, "boards/tickretry");
const work = mkdtempSync(join(tmpdir(), "tickretry-library-"));
const generated = join(work, "wasm2c");
const program = join(root, "test/boards"); // the "user's" program: scenarios.c, scenario.h

interface LibraryJson {
  name: string;
  version: string;
  description: string;
  keywords: string[];
  license: string;
  homepage: string;
  headers: string[];
  dependencies: { owner: string; name: string; version: string }[];
  build: { srcDir: string; includeDir: string; srcFilter: string[]; extraScript: string };
}
const manifest = JSON.parse(readFileSync(join(lib, "library.json"), "utf8")) as LibraryJson;

/** Every file under dir, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) =>
    statSync(join(dir, f)).isFile(),
  );
}

/** PlatformIO's source filter: "+<glob>" adds the files it matches, "-<glob>" removes them,
 * in order; `*` stays within a folder, `**` crosses folders. */
function applySrcFilter(files: string[], filter: string[]): string[] {
  const globRe = (glob: string) =>
    new RegExp(
      "^" +
        glob
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*\*/g, "\0")
          .replace(/\*/g, "[^/]*")
          .replace(/\0/g, ".*") +
        "(/.*)?$",
    );
  let picked = new Set<string>();
  for (const item of filter) {
    const m = /^([+-])<(.*)>$/.exec(item);
    if (!m) throw new Error(`bad srcFilter item ${item}`);
    const re = globRe(m[2]);
    const matched = files.filter((f) => re.test(f));
    picked =
      m[1] === "+"
        ? new Set([...picked, ...matched])
        : new Set([...picked].filter((f) => !matched.includes(f)));
  }
  return [...picked].sort();
}

const srcDir = join(lib, manifest.build.srcDir);
/** The C sources library.json builds: what its srcFilter picks from srcDir. */
const sources = applySrcFilter(filesUnder(srcDir), manifest.build.srcFilter)
  .filter((f) => f.endsWith(".c"))
  .map((f) => join(srcDir, f));
/** Its include folders, as PlatformIO adds them: includeDir, then srcDir. */
const includes = [join(lib, manifest.build.includeDir), srcDir];

let v8Trace = "";
let generatedSources: string[] = [];

beforeAll(() => {
  v8Trace = traceScenarios(instantiate(), loadScenarios());
  // The extra script's generator, run as ESP-IDF's CMakeLists.txt runs it.
  generatedSources = run("python3", [join(lib, manifest.build.extraScript), generated])
    .trim()
    .split("\n");
  runTsx("scripts/gen/scenarios.ts", join(work, "scenarios.h"));
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** gcc over the program, the library's sources and `extra`, with only the library's
 * include folders, the generated ones and the program's own. */
function build(out: string, defines: string[], extraIncludes: string[], extra: string[]): string {
  const exe = join(work, out);
  run("gcc", [
    "-O2",
    ...defines.map((d) => `-D${d}`),
    ...[...includes, ...extraIncludes, program, work].map((dir) => `-I${dir}`),
    "-Wall",
    "-Wno-unused-value",
    "-Wno-unused-parameter",
    "-Wno-unused-variable",
    "-Wno-unused-function",
    join(program, "scenarios.c"),
    ...sources,
    ...extra,
    "-o",
    exe,
  ]);
  return exe;
}

describe("the firmware library (boards/tickretry)", () => {
  test("gcc from only library.json's sources and include folders, wasm2c backend: V8's trace", () => {
    expect(sources.map((s) => relative(lib, s))).toContain("tickretry_wasm2c.c");
    expect(generatedSources.map((s) => relative(generated, s)).sort()).toEqual([
      "tickretry_w2c.c",
      "wasm-rt-impl.c",
    ]);
    // The defines the extra script adds when the firmware picks the wasm2c backend.
    const exe = build(
      "scenarios-wasm2c",
      ["TICKRETRY_BACKEND_WASM2C=1", "WASM_RT_MEMCHECK_SIGNAL_HANDLER=0"],
      [generated],
      generatedSources,
    );
    expect(run(exe, [])).toBe(v8Trace);
  }, 120_000);

  test("the same files with no backend macro build the wasm3 backend (here over wasm3-shim)", () => {
    const shim = join(program, "wasm3-shim");
    const exe = build(
      "scenarios-wasm3",
      ["WASM_RT_MEMCHECK_SIGNAL_HANDLER=0"],
      [shim, generated],
      [join(shim, "wasm3_shim.c"), ...generatedSources],
    );
    expect(run(exe, [])).toBe(v8Trace);
  }, 120_000);

  test("library.json: the fields PlatformIO's schema requires, Wasm3 pinned, files that exist", () => {
    expect(manifest.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(manifest.name.length).toBeLessThanOrEqual(50);
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.description.length).toBeGreaterThan(0);
    expect(manifest.description.length).toBeLessThanOrEqual(255);
    expect(manifest.keywords.length).toBeGreaterThan(0);
    for (const k of manifest.keywords) expect(k).toMatch(/^[a-z\d]+(-[a-z\d]+)*$/);
    expect(manifest.license).toBe("MIT");
    expect(manifest.dependencies).toEqual([{ owner: "wasm3", name: "Wasm3", version: "0.5.0" }]);
    for (const h of manifest.headers) expect(existsSync(join(lib, manifest.build.includeDir, h))).toBe(true);
    expect(existsSync(join(lib, manifest.build.extraScript))).toBe(true);
  });

  test("library.properties: every field the Arduino specification requires; flat layout", () => {
    const props = Object.fromEntries(
      readFileSync(join(lib, "library.properties"), "utf8")
        .split("\n")
        .filter((l) => l.trim() && !l.startsWith("#"))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    for (const field of [
      "name",
      "version",
      "author",
      "maintainer",
      "sentence",
      "paragraph",
      "category",
      "url",
      "architectures",
    ]) {
      expect(props[field], field).toMatch(/\S/);
    }
    expect(props.name).toMatch(/^[A-Za-z0-9][A-Za-z0-9 _.-]*$/);
    expect(props.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect([
      "Display",
      "Communication",
      "Signal Input/Output",
      "Sensors",
      "Device Control",
      "Timing",
      "Data Storage",
      "Data Processing",
      "Other",
    ]).toContain(props.category);
    expect(props.depends).toBe("Wasm3 (=0.5.0)");
    for (const h of props.includes.split(",")) expect(existsSync(join(lib, h.trim()))).toBe(true);
    // No src/ folder: Arduino compiles the root (flat layout), so every source must be there.
    expect(existsSync(join(lib, "src"))).toBe(false);
    for (const s of sources) expect(relative(lib, s)).not.toContain("/");
    expect({ name: props.name, version: props.version, url: props.url }).toEqual({
      name: manifest.name,
      version: manifest.version,
      url: manifest.homepage,
    });
  });

  test("idf_component.yml and CMakeLists.txt: an ESP-IDF component over the same sources", () => {
    const yml = readFileSync(join(lib, "idf_component.yml"), "utf8");
    const field = (name: string) => new RegExp(`^${name}: "(.*)"$`, "m").exec(yml)?.[1];
    expect(field("version")).toBe(manifest.version); // required to upload to the registry
    expect(field("description")).toMatch(/\S/);
    expect(field("url")).toBe(manifest.homepage);
    expect(field("license")).toBe(manifest.license);
    expect(yml).toMatch(/^dependencies:\n {2}idf: ">=\d+\.\d+"$/m);
    const cmake = readFileSync(join(lib, "CMakeLists.txt"), "utf8");
    expect(cmake).toMatch(
      /idf_component_register\(SRCS \$\{tickretry_srcs\} INCLUDE_DIRS \$\{tickretry_includes\}\)/,
    );
    // The component globs *.c of this folder: exactly the sources library.json builds.
    expect(cmake).toContain('file(GLOB tickretry_srcs "${CMAKE_CURRENT_LIST_DIR}/*.c")');
    const globbed = readdirSync(lib)
      .filter((f) => f.endsWith(".c"))
      .map((f) => join(lib, f))
      .sort();
    expect(globbed).toEqual(sources);
  });

  test("one version everywhere: package.json, the manifests, the CHANGELOG's latest entry and its ABI", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      version: string;
      license: string;
    };
    const abi = JSON.parse(readFileSync(join(root, "assembly/constants.json"), "utf8")) as {
      abiVersion: number;
    };
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.license).toBe(pkg.license);
    const latest = /^## (\S+): ABI version (\d+)$/m.exec(readFileSync(join(root, "CHANGELOG.md"), "utf8"));
    expect(latest?.slice(1)).toEqual([pkg.version, String(abi.abiVersion)]);
  });
});
