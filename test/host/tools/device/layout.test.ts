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

  // The firmware's composition is not a room (it owns no state but the rooms): one file,
  // boards/app/device.c, which the board's main.cpp and the host-run firmware both run.
  it.each(["boards/esp32/src/main.cpp", "test/boards/app_host/app_host.c"])(
    "%s runs boards/app/device.c's composition and keeps no copy of it",
    (file) => {
      const text = readFileSync(`${ROOT}${file}`, "utf8");
      for (const call of [
        "app_device_begin(",
        "app_device_start(",
        "app_device_pass(",
        "app_device_after_pass(",
      ]) {
        expect(text).toContain(call);
      }
      expect(text).not.toMatch(
        /tickretry_loop_hal|tickretry_loop_init\(|tickretry_init\(|app_keeper_resume\(/,
      );
    },
  );

  it("composes them in a device.ts of at most 250 lines", () => {
    const lines = readFileSync(`${ROOT}host/tools/src/device/device.ts`, "utf8").split("\n").length - 1;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
