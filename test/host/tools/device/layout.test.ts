// The one device application's shape (issue 32): the simulator's rooms are the firmware's,
// under the same names, and device.ts only composes them.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../../helpers/command.js";

const ROOMS = ["kept", "settings", "password", "status", "broker", "readings", "sessions", "requests"];

describe("the simulated device's layout", () => {
  it.each(ROOMS)("has the room %s on both sides: boards/app and host/tools/src/device/app", (room) => {
    expect(existsSync(`${ROOT}boards/app/${room}.c`), `boards/app/${room}.c`).toBe(true);
    expect(existsSync(`${ROOT}host/tools/src/device/app/${room}.ts`), `app/${room}.ts`).toBe(true);
  });

  it("composes them in a device.ts of at most 250 lines", () => {
    const lines = readFileSync(`${ROOT}host/tools/src/device/device.ts`, "utf8").split("\n").length - 1;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
