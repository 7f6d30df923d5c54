// The sketch's MQTT session (boards/esp32/src/mqtt_session.c) built with gcc and run against
// the real module (wasm2c) and a fake esp-mqtt client (test/boards/mqtt_check.c): esp-mqtt's
// events, queued by the handler and applied as loop() applies them, become the module's
// words: CONNECTED makes the broker session UP, PUBLISHED(msg_id) ends its upload
// SUCCEEDED, DISCONNECTED drops the session and fails the publish in flight AMBIGUOUS, a
// publish with no connection fails TRANSIENT at once, and a refused CONNACK (5: not
// authorised) ends the session PERMANENT.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { EndReason, Outcome, State } from "../../host/library/src/generated/abi.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("maps esp-mqtt's events onto report, drop and link_up", () => {
  execFileSync("make", ["-s", "-C", "test/boards", "mqtt"], { cwd: ROOT });
  const out = execFileSync(`${ROOT}build/native/mqtt_check`, { encoding: "utf8" }).trim().split("\n");
  expect(out).toEqual([
    `connected state=${State.UP} up=1 starts=1`,
    `published end=${EndReason.SUCCEEDED}`,
    `dropped state=${State.WAITING} upload=${Outcome.AMBIGUOUS} drops=1`,
    `while down upload=${Outcome.TRANSIENT}`,
    `refused reconnects=1 state=${State.DONE} end=${EndReason.PERMANENT} lost=0`,
  ]);
}, 120_000);
