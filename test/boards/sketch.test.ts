// The sketch (boards/esp32: main.cpp composing the board-free application of boards/app
// over the board's HAL) against the setup page's contract, boards/page/routes.json, and
// against stand-ins for the Arduino-ESP32 and esp-mqtt headers (test/boards/arduino-shim,
// test/boards/esp-mqtt-shim: declarations only, at the ESP32's integer widths): every
// board file type-checks warning-free with both backends, with HTTP and with MQTT uploads
// (UPLOAD_MQTT, against esp-mqtt's IDF 4.4 and IDF 5 configuration layouts), and every
// room of boards/app compiles as C with no Arduino or ESP-IDF header; main.cpp stays at
// most 300 lines; the page server registers every route through the generated table and
// routed() (which checks the Host first, issue 20 defect 1), and nothing says anything to
// a person that the contract does not hold. The simulator's table is held to the same
// contract when its server is made. The library's Arduino examples
// (boards/tickretry/examples) type-check against the library alone, as a registry builds them.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { routeTable, ROUTES } from "../../host/tools/src/device/page/routes.js";
import { HANDLERS } from "../../host/tools/src/device/page/handlers.js";
import { KEPT_BYTES } from "../../host/tools/src/device/nvs-wear.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BOARD = `${ROOT}boards/esp32/src`;
const APP = `${ROOT}boards/app`;
const SKETCH = readFileSync(`${BOARD}/main.cpp`, "utf8");
const PAGE_SERVER = readFileSync(`${BOARD}/page_server.cpp`, "utf8");
const PAGE_LOOP = readFileSync(`${BOARD}/page_loop.cpp`, "utf8");
const BOARD_FILES = readdirSync(BOARD).filter((f) => f.endsWith(".cpp"));
const APP_FILES = readdirSync(APP).filter((f) => f.endsWith(".c"));
const code = (text: string) => text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, "");
/** Every check here: a syntax check that fails on any warning. */
const STRICT = ["-fsyntax-only", "-Wall", "-Wextra", "-Wshadow", "-Werror"];
/** The C++ standards the frameworks' PlatformIO builders compile the sketch with: gnu++11 under
 * arduino-esp32 2.x (the default environment), gnu++2b under 3.x. */
const CXX_STANDARDS = ["gnu++11", "gnu++2b"];
/** The sketch and the examples name only the policy fields they set; the rest are 0 by design. */
const SKETCH_FLAGS = [...STRICT, "-Wno-missing-field-initializers"];

function typeCheck(backend: string, extra: string[] = [], file = "main.cpp", std = "gnu++11") {
  return spawnSync(
    "g++",
    [
      ...SKETCH_FLAGS,
      `-std=${std}`,
      `-DTICKRETRY_BACKEND_${backend}=1`,
      "-Itest/boards/arduino-shim",
      "-Itest/boards/wasm3-shim",
      "-Itest/boards/esp-mqtt-shim",
      "-Iboards/tickretry",
      "-Iboards/app",
      "-Iboards/esp32/src",
      ...extra,
      `boards/esp32/src/${file}`,
    ],
    { cwd: ROOT, encoding: "utf8" },
  );
}

describe("the sketch", () => {
  it.each(
    BOARD_FILES.flatMap((file) =>
      ["WASM3", "WASM2C"].flatMap((b) => CXX_STANDARDS.map((std) => [file, b, std])),
    ),
  )(
    "%s type-checks without a warning (-Wall -Wextra -Wshadow) on the %s backend, -std=%s",
    (file, b, std) => {
      const r = typeCheck(b, [], file, std);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    },
  );

  it("main.cpp is at most 300 lines: the application is in boards/app", () => {
    expect(SKETCH.split("\n").length - 1).toBeLessThanOrEqual(300);
  });

  const UPLOADS: [string, string[]][] = [
    ["HTTP", ["-DUPLOAD_MQTT=0"]],
    ["MQTT, IDF 4.4", ["-DUPLOAD_MQTT=1"]],
    ["MQTT, IDF 5", ["-DUPLOAD_MQTT=1", "-DESP_IDF_VERSION_MAJOR=5"]],
    ["HTTP, DEEP_SLEEP=1", ["-DUPLOAD_MQTT=0", "-DDEEP_SLEEP=1"]],
  ];
  it.each(BOARD_FILES.flatMap((file) => UPLOADS.map(([name, flags]) => [file, name, flags])))(
    "%s type-checks without a warning with %s uploads",
    (file, _name, flags) => {
      const r = typeCheck("WASM2C", flags as string[], file as string);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    },
  );

  it("calls no delay() outside loop()'s wait between passes, and no blocking Wi-Fi call", () => {
    for (const file of BOARD_FILES.filter((f) => f !== "main.cpp")) {
      const text = code(readFileSync(`${BOARD}/${file}`, "utf8"));
      expect(text).not.toMatch(/\bdelay\(|waitForConnectResult|WiFi\.disconnect\(/);
    }
    expect(code(SKETCH).match(/\bdelay\(/g)).toEqual(["delay("]);
    expect(code(SKETCH)).toMatch(/delay\(tickretry_loop_sleep\(due, PASS_MAX_WAIT_MS\)\);\s*}\s*$/);
  });

  it("keeps the state the flash-life model assumes (sizeof(Kept) is nvs-wear.ts's KEPT_BYTES)", () => {
    const r = typeCheck("WASM3", [`-DKEPT_BYTES_EXPECTED=${KEPT_BYTES}`]);
    expect(r.stderr).toBe("");
    expect(typeCheck("WASM3", [`-DKEPT_BYTES_EXPECTED=${KEPT_BYTES + 4}`]).stderr).toContain("KEPT_BYTES");
  });

  it("fails to build when the contract names a handler it lacks", () => {
    // A route added to routes.json reaches the sketch as a table row naming handle_<name>.
    const r = typeCheck("WASM3", ["-include", "test/boards/arduino-shim/extra-route.h"], "page_server.cpp");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("handle_not_written_yet");
  });

  it("registers routes only through the generated table, each through routed(), in the page server", () => {
    const server = code(PAGE_SERVER);
    expect(server.match(/httpd_register_uri_handler\(/g)).toEqual(["httpd_register_uri_handler("]);
    expect(server).toMatch(
      /static void register_route\(const Registered &r\) {\s*httpd_uri_t uri = {};[^}]*uri\.handler = routed;/,
    );
    expect(server).toMatch(/static const Registered ROUTES\[\] = {PAGE_ROUTES\(ROUTE\)/);
    for (const line of server.split("\n").filter((l) => /httpd_register_err_handler\(/.test(l))) {
      expect(line).toMatch(/, unrouted\);$/);
    }
    for (const file of BOARD_FILES.filter((f) => f !== "page_server.cpp")) {
      expect(readFileSync(`${BOARD}/${file}`, "utf8")).not.toMatch(/httpd_register_|server\.on\(/);
    }
    for (const r of ROUTES.filter((route) => route.on !== "simulator")) {
      expect(PAGE_SERVER).toContain(`static esp_err_t handle_${r.handler}(httpd_req_t *req) {`);
    }
  });

  // Issue 33 item 1: a client that trickles its request (one header byte every 0.9 s) holds
  // only the server's task, never the loop's: no upload, retry or reconnect waits for it.
  it("serves the page from esp_http_server's own task; the loop only does what handlers asked", () => {
    const server = code(PAGE_SERVER);
    for (const field of ["recv_wait_timeout", "send_wait_timeout", "max_open_sockets"]) {
      expect(server).toMatch(new RegExp(`config\\.${field} = PAGE_\\w+;`));
    }
    expect(server).toMatch(/config\.lru_purge_enable = true;/);
    for (const file of BOARD_FILES) {
      expect(code(readFileSync(`${BOARD}/${file}`, "utf8"))).not.toMatch(/handleClient|WebServer/);
    }
    // The handlers' task never touches the module, the store or the clock (the loop's).
    expect(server).not.toMatch(
      /\btickretry_\w+\(|app_keeper_|\bnvs_(get|put)|\bhal\b|board_hal|millis\(|ticks\(|app_requests_/,
    );
    expect(server).not.toMatch(/#include "(board_hal|kept|tickretry|tickretry_wasm3)\.h"/);
    // The loop's side takes what was asked once a pass, from the tickretry loop's serve step
    // (the device's, boards/app/device.c, which calls the board's page).
    expect(code(SKETCH)).toMatch(/device\.serve = page_loop_serve;/);
    const device = code(readFileSync(`${APP}/device.c`, "utf8"));
    expect(device).toMatch(/static void hal_serve\(void \*ctx\) {[^}]*d->serve\(\);\s*}/);
    expect(device).toMatch(/\.serve = hal_serve,/);
    for (const idf of ["4", "5"]) {
      for (const backend of ["WASM3", "WASM2C"]) {
        const r = typeCheck(backend, [`-DESP_IDF_VERSION_MAJOR=${idf}`], "page_server.cpp");
        expect(r.stderr).toBe("");
        expect(r.status).toBe(0);
      }
    }
  });

  it("registers the loop task with the task watchdog and feeds it every pass (IDF 4.4 and 5 signatures)", () => {
    const watchdog = code(readFileSync(`${BOARD}/watchdog.cpp`, "utf8"));
    expect(watchdog).toMatch(/esp_task_wdt_add\(nullptr\)/);
    expect(watchdog).toMatch(/esp_task_wdt_init\(WATCHDOG_TIMEOUT_S, true\)/);
    expect(watchdog).toMatch(/esp_task_wdt_reconfigure\(&config\)/);
    expect(code(SKETCH)).toMatch(/void setup\(\) {[^}]*watchdog_begin\(\);/);
    expect(code(SKETCH)).toMatch(/void loop\(\) {\s*watchdog_feed\(\);/);
    for (const idf of ["4", "5"]) {
      const r = typeCheck("WASM3", [`-DESP_IDF_VERSION_MAJOR=${idf}`], "watchdog.cpp");
      expect(r.stderr).toBe("");
    }
    // An uploaded module's trial mark (../app/module_swap.h) is a word a reset keeps; the
    // loop swaps between passes and restarts when the module under trial fails one.
    expect(watchdog).toMatch(/RTC_NOINIT_ATTR static uint32_t trial;/);
    expect(code(PAGE_LOOP)).toMatch(
      /app_module_swap_boot\(&swap, &hal, rooms\.keeper, watchdog_trial_mark\(\)/,
    );
    expect(code(PAGE_LOOP)).toMatch(
      /if \(!app_module_swap_failed\(&swap\)\) return;[^}]*hal\.restart\(hal\.ctx\);/,
    );
    expect(code(SKETCH)).toMatch(/void loop\(\) {\s*watchdog_feed\(\);\s*page_loop_swap\(\);/);
  });

  it("answers people only in the contract's words", () => {
    for (const file of BOARD_FILES) {
      const text = readFileSync(`${BOARD}/${file}`, "utf8");
      expect(text).not.toMatch(/(send_json|send_text|answer)\((req, )?\d+, "/);
      expect(text).not.toMatch(/respond\(req, \d+, "[^"]+", "/);
    }
  });
});

describe("the application's rooms (boards/app)", () => {
  it("include no Arduino or ESP-IDF header", () => {
    const files = readdirSync(APP).filter((f) => /\.[ch]$/.test(f));
    for (const file of files) {
      const includes = code(readFileSync(`${APP}/${file}`, "utf8")).match(/#include\s*[<"][^>"]+[>"]/g) ?? [];
      for (const line of includes) {
        expect(line, `${file}: ${line}`).not.toMatch(
          /[<"](Arduino|WiFi|WebServer|Preferences|HTTPClient|esp_\w+|mqtt_client|freertos\/\w+)\.h[>"]/,
        );
      }
    }
  });

  it.each(APP_FILES.flatMap((file) => ["0", "1"].map((mqtt) => [file, mqtt])))(
    "%s compiles as C without a warning (UPLOAD_MQTT=%s)",
    (file, mqtt) => {
      const r = spawnSync(
        "gcc",
        [
          "-std=c11",
          ...STRICT,
          `-DUPLOAD_MQTT=${mqtt}`,
          "-Iboards/tickretry",
          "-Iboards/app",
          `boards/app/${file}`,
        ],
        { cwd: ROOT, encoding: "utf8" },
      );
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    },
  );
});

// The sketch's C files (the board-free rooms and the board's own) under the two mbedTLS
// layouts the frameworks ship: 2.28 (arduino-esp32 2.x, ESP-IDF 4.4; Debian's libmbedtls-dev
// has the same API) and 3.6 under ESP-IDF 5's configuration (arduino-esp32 3.x; the stand-in
// test/boards/mbedtls3-shim, whose esp_config.h defines MBEDTLS_DEPRECATED_REMOVED as the real
// one does). An implicit declaration is an error, as GCC 14 (arduino-esp32 3.2) makes it.
describe("the sketch's C files under both mbedTLS layouts", () => {
  const C_FILES = [
    ...readdirSync(`${ROOT}boards/app`)
      .filter((f) => f.endsWith(".c"))
      .map((f) => `boards/app/${f}`),
    ...readdirSync(`${ROOT}boards/esp32/src`)
      .filter((f) => f.endsWith(".c"))
      .map((f) => `boards/esp32/src/${f}`),
  ];
  // Each under the C standard its framework's PlatformIO builder uses: gnu99 with arduino-esp32
  // 2.x, gnu17 with 3.x.
  const LAYOUTS: [string, string[]][] = [
    ["mbedTLS 2.28 (ESP-IDF 4.4, -std=gnu99)", ["-std=gnu99"]],
    [
      "mbedTLS 3.6 under ESP-IDF 5's config (-std=gnu17)",
      ["-std=gnu17", "-Itest/boards/mbedtls3-shim", '-DMBEDTLS_CONFIG_FILE="mbedtls/esp_config.h"'],
    ],
  ];
  const compileC = (flags: string[], file: string) =>
    spawnSync(
      "gcc",
      [
        "-fsyntax-only",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Werror=implicit-function-declaration",
        ...flags,
        "-Iboards/tickretry",
        "-Iboards/app",
        "-Iboards/esp32/src",
        file,
      ],
      { cwd: ROOT, encoding: "utf8" },
    );

  it.each(LAYOUTS.flatMap(([name, flags]) => C_FILES.map((file) => [file, name, flags])))(
    "%s compiles without a warning against %s",
    (file, _name, flags) => {
      const r = compileC(flags as string[], file as string);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    },
  );

  it("the ESP-IDF 5 layout refuses the PBKDF2 call that mbedTLS 3 removed", () => {
    const r = compileC(LAYOUTS[1]![1], "test/boards/mbedtls3-shim/removed_call.c");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("mbedtls_pkcs5_pbkdf2_hmac");
    expect(compileC(LAYOUTS[0]![1], "test/boards/mbedtls3-shim/removed_call.c").status).toBe(0);
  });
});

describe("the library's Arduino examples", () => {
  const EXAMPLES = readdirSync(`${ROOT}boards/tickretry/examples`);

  it("are RetriedGet and SetupPage, each <Name>/<Name>.ino", () => {
    expect(EXAMPLES.sort()).toEqual(["RetriedGet", "SetupPage"]);
    for (const name of EXAMPLES)
      expect(readdirSync(`${ROOT}boards/tickretry/examples/${name}`)).toEqual([`${name}.ino`]);
  });

  it("serve their page from a server task of its own, never from loop() (no handleClient)", () => {
    for (const name of EXAMPLES) {
      const text = code(readFileSync(`${ROOT}boards/tickretry/examples/${name}/${name}.ino`, "utf8"));
      expect(text).not.toMatch(/handleClient|WebServer\b/);
    }
  });

  it.each(
    EXAMPLES.flatMap((name) =>
      ["WASM3", "WASM2C"].flatMap((backend) => CXX_STANDARDS.map((std) => [name, backend, std])),
    ),
  )(
    "%s type-checks without a warning on the %s backend, -std=%s, with the library as its only include path",
    (name, backend, std) => {
      const r = spawnSync(
        "g++",
        [
          ...SKETCH_FLAGS,
          `-std=${std}`,
          `-DTICKRETRY_BACKEND_${backend}=1`,
          "-Itest/boards/arduino-shim",
          "-Itest/boards/esp-mqtt-shim", // the framework's esp_idf_version.h
          "-Itest/boards/wasm3-shim",
          "-Iboards/tickretry",
          "-x",
          "c++",
          `boards/tickretry/examples/${name}/${name}.ino`,
        ],
        { cwd: ROOT, encoding: "utf8" },
      );
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    },
  );
});

describe("the simulator's route table", () => {
  it("is the contract's, route for route", () => {
    expect([...routeTable(HANDLERS).keys()]).toEqual(ROUTES.map((r) => r.path));
  });

  it("is refused when a handler is missing or one is not in the contract", () => {
    const { status: _status, ...missing } = HANDLERS;
    expect(() => routeTable(missing)).toThrow(/missing status; not in the contract none/);
    expect(() => routeTable({ ...HANDLERS, extra: HANDLERS.status })).toThrow(/not in the contract extra/);
  });
});
