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
  it("test/boards/app_host/host_page.c (the page as it is to post asks) asks only", () => {
    expect(violations("test/boards/app_host/host_page.c", graph)).toEqual([]);
  });

  // TODO(issue 32, item 2): what the board's page files still reach. page.c's guess limit
  // reads the tick; page_server.cpp opens and closes the module for a swap, reads the
  // module's figures and the live operations for the status, reads and writes NVS, and reads
  // the tick. The esp_http_server rewrite is to post asks (requests.h) instead: each fix
  // shrinks these lists, and the test fails until they say so.
  it("boards/app/page.c reaches only what the list says", () => {
    expect(violations("boards/app/page.c", graph)).toEqual(["hal ticks"]);
  });

  it("boards/esp32/src/page_server.cpp reaches only what the list says", () => {
    expect(violations("boards/esp32/src/page_server.cpp", graph)).toEqual(PAGE_SERVER_DEBT);
  });

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

const PAGE_SERVER_DEBT = [
  "app_readings_status -> tickretry_slot", // the live operations, read from the module
  "hal nvs_get_string", // the password's hash, the settings
  "hal nvs_get_u32", // the module's version floor
  "hal nvs_put_string", // the settings and the password: asks.c's, once it posts them
  "hal nvs_put_u32", // the Wi-Fi fails count and the module's version floor
  "hal ticks", // now(): the status, the guess limit, the power requests' old forms
  "hal wall_ms", // the status
  "tickretry_abi_version", // the status's module figures
  "tickretry_close", // the module swap
  "tickretry_counter",
  "tickretry_error",
  "tickretry_tokens",
  "tickretry_wasm3_open", // the module swap, in the handler
  "tickretry_wasm3_refusal",
];
