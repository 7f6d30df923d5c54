// One list of /status.json's fields (boards/page/status-fields.json): the simulator's
// status and the sketch's writer (boards/app/status.c over the generated
// status_fields.h, built here with gcc) both have exactly its keys, nested alike.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COUNTERS } from "../../host/library/src/names.js";
import { startSimulation, type Simulation } from "../../host/tools/src/device/simulation.js";
import { STATUS_FIELDS, statusKeys } from "../../scripts/embed/status-keys.js";
import { QUICK, waitFor } from "../helpers/device.js";
import { makeBoards, ROOT } from "../helpers/command.js";

/** Every key path of a JSON value (array elements merged), sorted. */
function paths(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((v) => paths(v, prefix)))];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [`${prefix}${k}`, ...paths(v, `${prefix}${k}.`)]);
}

/**
 * The key paths the list asks for; counters has every module counter by name. Groups
 * a source has none of (null, or an empty list) have no keys below them.
 */
function expected(has: { upstream: boolean; sessions: boolean; mqtt: boolean; policy: boolean }): string[] {
  const out: string[] = [];
  const absent = new Set([
    ...(has.upstream ? [] : ["upstream"]),
    ...(has.sessions ? [] : ["sessions"]),
    ...(has.mqtt ? [] : ["broker", "consumer"]),
    ...(has.policy ? [] : ["policy"]),
  ]);
  for (const [path] of statusKeys()) {
    if (absent.has(path[0]) && path.length > 1) continue;
    out.push(path.join("."));
    if (path.join(".") === "counters") for (const [name] of COUNTERS) out.push(`counters.${name}`);
  }
  return out.sort();
}

/** Checks each leaf's JSON type against the list's type name. */
function typesMatch(value: Record<string, unknown>, spec: Record<string, unknown>): void {
  for (const [key, type] of Object.entries(spec)) {
    if (key === "$comment") continue;
    const name = key.replace(/\?$/, "");
    const v = value[name];
    if (key.endsWith("?") && v === null) continue;
    if (Array.isArray(type)) {
      expect(Array.isArray(v)).toBe(true);
      for (const item of v as Record<string, unknown>[]) typesMatch(item, type[0]);
    } else if (typeof type === "object")
      typesMatch(v as Record<string, unknown>, type as Record<string, unknown>);
    else if (type === "counters") expect(Object.values(v as object).every(Number.isInteger)).toBe(true);
    else if (type === "string[]") expect((v as unknown[]).every((s) => typeof s === "string")).toBe(true);
    else {
      const ok: Record<string, (x: unknown) => boolean> = {
        int: Number.isInteger,
        uint: (x) => Number.isInteger(x) && (x as number) >= 0,
        number: (x) => typeof x === "number",
        bool: (x) => typeof x === "boolean",
        string: (x) => typeof x === "string",
        "int?": (x) => x === null || Number.isInteger(x),
        "number?": (x) => x === null || typeof x === "number",
      };
      expect([name, ok[type as string](v)]).toEqual([name, true]);
    }
  }
}

let sim: Simulation;
beforeAll(async () => {
  sim = await startSimulation({ port: 0, scenario: "hang", policy: QUICK, uploadEveryMs: 100 });
  makeBoards("page");
}, 120_000);
afterAll(() => sim.close());

describe("the status fields", () => {
  it("the simulator serves exactly the list's fields, with their types", async () => {
    const status = await waitFor("an operation, an ended one and events", async () => {
      const s = await (await fetch(new URL("/status.json", sim.url))).json();
      return s.operations.length > 0 && s.recent.length > 0 && s.events.length > 0 && s;
    });
    expect(paths(status).sort()).toEqual(
      expected({ upstream: true, sessions: false, mqtt: false, policy: true }),
    );
    typesMatch(status, STATUS_FIELDS);
  });

  it("the sketch's writer, built with gcc, writes exactly the list's fields, with their types", () => {
    const out = execFileSync(`${ROOT}build/native/page_check`, ["status"], { encoding: "utf8" });
    const status = JSON.parse(out);
    expect(paths(status).sort()).toEqual(
      expected({ upstream: false, sessions: true, mqtt: false, policy: false }),
    );
    typesMatch(status, STATUS_FIELDS);
    // Strings are escaped, UTF-8 kept as it is.
    expect(status.settings.ssid).toBe('café "quoted" \\ tab\t');
  });

  it("the sketch writes its status through that writer", () => {
    const sketch = readFileSync(`${ROOT}boards/esp32/src/page_status.cpp`, "utf8");
    expect(sketch).toContain("app_status_json(");
    // No key is spelled out by hand there.
    for (const [path] of statusKeys()) expect(sketch).not.toContain(`"\\"${path.at(-1)}\\":`);
  });
});
