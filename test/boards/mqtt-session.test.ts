// The sketch's MQTT session (boards/esp32/src/mqtt_session.c) built with gcc and run against
// the real module (wasm2c) and a fake esp-mqtt client (test/boards/mqtt_check.c): esp-mqtt's
// events, queued by the handler and applied as loop() applies them, become the module's
// words: CONNECTED makes the broker session UP, PUBLISHED(msg_id) ends its upload
// SUCCEEDED, DISCONNECTED drops the session and fails the publish in flight AMBIGUOUS, a
// publish with no connection fails TRANSIENT at once, and a refused CONNACK (5: not
// authorised) ends the session PERMANENT. The sketch's Wi-Fi session (wifi_session.c)
// beside it: a DISCONNECTED before any IP fails the connect attempt TRANSIENT (its reason
// kept), GOT_IP makes the session UP and its link_up makes the broker session, waiting
// out its backoff, due at once, and a DISCONNECTED while UP drops it; a connect attempt the
// module timed out is forgotten (counted failed), and an IP that comes after it makes the
// next attempt succeed at once, without another WiFi.begin; a publish timed out likewise
// is forgotten, so its late PUBACK reports nothing (no stale report).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { EndReason, Outcome, State } from "../../host/library/src/generated/abi.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("maps esp-mqtt's and the Wi-Fi events onto report, drop and link_up", () => {
  execFileSync("make", ["-s", "-C", "test/boards", "mqtt"], { cwd: ROOT });
  const out = execFileSync(`${ROOT}build/native/mqtt_check`, { encoding: "utf8" }).trim().split("\n");
  expect(out).toEqual([
    `connected state=${State.UP} up=1 starts=1`,
    `published end=${EndReason.SUCCEEDED}`,
    `dropped state=${State.WAITING} upload=${Outcome.AMBIGUOUS} drops=1`,
    `while down upload=${Outcome.TRANSIENT}`,
    `refused reconnects=1 state=${State.DONE} end=${EndReason.PERMANENT} lost=0`,
    `no ip state=${State.WAITING} failed=1 reason=201 begins=1 broker=${Outcome.TRANSIENT}`,
    `got ip state=${State.UP} failed=0 kicks=2 broker due before=0 after=1`,
    `wifi dropped state=${State.WAITING} drops=1 reason=8`,
    `late ip timed out=1 forgot=1 failed=1 then state=${State.UP} failed=0 begins=1`,
    `late puback up=1 timed out=1 forgot=1 stale reports=0`,
  ]);
}, 120_000);
