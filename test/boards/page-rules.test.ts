// The page's rule on the board's side (docs/device.md, "Who may touch what"; the simulator's
// is test/host/tools/device/page-rules.test.ts): a page handler asks (requests.h) and reads the
// snapshot the pass made; it never calls the module API, the kept state's keeper or NVS, nor
// reads the tick. Checked on what the compiler makes of each page file, so a macro or a
// wrapper cannot hide a call:
// - the object's undefined symbols, followed through the functions of boards/app they name
//   (compiled with -ffunction-sections: each function's relocations are its callees), to the
//   module API (tickretry_*), the keeper (app_keeper_*, app_kept_*), the loop's side of the
//   requests and asks, Arduino's and ESP-IDF's clocks and NVS;
// - the preprocessed file's own lines, for the board HAL's clock and store (app_hal.h's
//   ticks, micros, wall_ms, nvs_*, rtc_memory), which are calls through pointers.
// The HAL's fields are looked for in the page file only, not in the boards/app functions it
// calls (a function pointer leaves no symbol to follow).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/command.js";

const C_FLAGS = ["-std=gnu11", "-Iboards/tickretry", "-Iboards/app", "-Itest/boards/app_host"];
const CPP_FLAGS = [
  "-std=gnu++17",
  "-DTICKRETRY_BACKEND_WASM3=1",
  ...["-Itest/boards/arduino-shim", "-Itest/boards/wasm3-shim", "-Itest/boards/esp-mqtt-shim"],
  ...["-Iboards/tickretry", "-Iboards/app", "-Iboards/esp32/src"],
];

/** What page code may not reach: the module API (not its embedded bytes), the keeper, the loop's side of the requests, clocks and NVS. */
const FORBIDDEN =
  /^(tickretry_(?!wasm$)\w+|app_keeper_\w+|app_kept_\w+|app_asks_apply|app_requests_(take_upload|power_due)|millis|micros|esp_timer_get_time|xTaskGetTickCount\w*|nvs_\w+|_ZN11Preferences\w*)$/;
/** The board HAL's clock and store (app_hal.h): calls through its function pointers, and its RTC memory. */
const HAL_FIELD = /(?:->|\.)\s*(?:(ticks|micros|wall_ms|nvs_\w+)\s*\(|(rtc_memory)\b)/g;

let dir: string;

const compile = (file: string, out: string, extra: string[] = []) =>
  execFileSync(file.endsWith(".cpp") ? "g++" : "gcc", [...flagsOf(file), ...extra, "-c", file, "-o", out], {
    cwd: ROOT,
  });
const flagsOf = (file: string) => (file.endsWith(".cpp") ? CPP_FLAGS : C_FLAGS);
const lines = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { cwd: ROOT, encoding: "utf8" }).split("\n");

/** Each function of boards/app -> what it references (relocations of its own section). */
function callGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of readdirSync(join(ROOT, "boards/app")).filter((f) => f.endsWith(".c"))) {
    const obj = join(dir, `${basename(file, ".c")}.o`);
    compile(`boards/app/${file}`, obj, ["-O0", "-ffunction-sections"]);
    let callees: Set<string> | undefined;
    for (const line of lines("objdump", ["-r", obj])) {
      const section = line.match(/^RELOCATION RECORDS FOR \[\.text\.(\w+)\]:/);
      if (section) graph.set(section[1], (callees = graph.get(section[1]) ?? new Set()));
      else if (line.startsWith("RELOCATION RECORDS")) callees = undefined;
      const target = line.match(/^[0-9a-f]+\s+\S+\s+([A-Za-z_]\w*)/);
      if (callees && target) callees.add(target[1]);
    }
  }
  return graph;
}

/** `symbol` and the path to what it reaches that page code may not, or undefined. */
function reaches(
  symbol: string,
  graph: Map<string, Set<string>>,
  seen = new Set<string>(),
): string | undefined {
  if (FORBIDDEN.test(symbol)) return symbol;
  if (seen.has(symbol)) return undefined;
  seen.add(symbol);
  for (const callee of graph.get(symbol) ?? []) {
    const path = reaches(callee, graph, seen);
    if (path !== undefined) return `${symbol} -> ${path}`;
  }
  return undefined;
}

/** What `file` reaches that page code may not: call paths, and the HAL fields its own lines use. */
function violations(file: string, graph: Map<string, Set<string>>): string[] {
  const obj = join(dir, "page.o");
  compile(file, obj);
  const undefinedSymbols = lines("nm", ["-u", obj]).map((l) => l.trim().split(/\s+/)[1]);
  const found = new Set<string>();
  for (const symbol of undefinedSymbols.filter(Boolean)) {
    const path = reaches(symbol, graph);
    if (path !== undefined) found.add(path);
  }
  let own = false;
  for (const line of lines(file.endsWith(".cpp") ? "g++" : "gcc", [...flagsOf(file), "-E", file])) {
    const marker = line.match(/^# \d+ "([^"]+)"/);
    if (marker) own = marker[1] === file;
    else if (own) for (const m of line.matchAll(HAL_FIELD)) found.add(`hal ${m[1] ?? m[2]}`);
  }
  return [...found].sort();
}

let graph: Map<string, Set<string>>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "page-rules-"));
  graph = callGraph();
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the board's page code never touches the module, the store or the clock", () => {
  // The page's own code on each build: the host-run firmware's page, the board-free page
  // rules (the guess limit takes the time it is given) and the board's server, whose
  // handlers run in esp_http_server's task and hand each ask to the loop (page_loop.cpp).
  it.each(["test/boards/app_host/host_page.c", "boards/app/page.c", "boards/esp32/src/page_server.cpp"])(
    "%s asks and reads the snapshot, and reaches nothing else",
    (file) => {
      expect(violations(file, graph)).toEqual([]);
    },
  );

  it("names every break in a file that breaks the rule", () => {
    expect(violations("test/boards/page_breaks_rules.c", graph)).toEqual([
      "app_keeper_keep",
      "app_readings_status -> tickretry_slot",
      "hal nvs_put_string",
      "hal ticks",
      "tickretry_poll",
    ]);
  });
});
