// The sketch's MQTT session (boards/app/mqtt_session.c, over the board's esp-mqtt glue
// boards/esp32/src/mqtt_link.c) built with gcc and run against the real module (wasm2c)
// and a fake esp-mqtt client (test/boards/mqtt_check.c), through
// the tickretry loop (boards/tickretry/tickretry_loop.c) as the sketch runs it: esp-mqtt's events,
// queued by the handler and drained by the HAL's collect, become the loop's words:
// CONNECTED makes the broker session UP, PUBLISHED(msg_id) ends its upload SUCCEEDED,
// DISCONNECTED is a drop through the HAL's `dropped` and fails the publish in flight
// AMBIGUOUS, a publish with no connection fails TRANSIENT at once, and a refused CONNACK
// (5: not authorised) ends the session PERMANENT. The sketch's Wi-Fi session
// (wifi_session.c) beside it: a DISCONNECTED before any IP fails the connect attempt
// TRANSIENT (its reason kept), GOT_IP makes the session UP and, through `link_up`, kicks
// the broker session waiting out its backoff, which starts in the same pass; a
// DISCONNECTED while UP drops it; a connect attempt the loop timed out is forgotten
// (counted failed), and an IP that comes after it kicks the next attempt, which succeeds
// at once, without another WiFi.begin; a publish timed out likewise is forgotten, so its
// late PUBACK reports nothing (no stale report). The sessions never call the module's drop
// or linkUp themselves: their objects leave both to the loop. A refused login (CONNACK 4)
// ends the session PERMANENT and no connect goes out until the hold is over (issue 33,
// item 6); then a new session begins on the same client.
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { EndReason, Outcome, State } from "../../host/library/src/generated/abi.js";
import { BROKER_SESSION } from "../../host/tools/src/device/generated/app-config.js";
import { makeBoards, ROOT } from "../helpers/command.js";

it("runs esp-mqtt's and the Wi-Fi events through the tickretry loop's collect, dropped and link_up", () => {
  makeBoards("mqtt");
  const out = execFileSync(`${ROOT}build/native/mqtt_check`, { encoding: "utf8" }).trim().split("\n");
  expect(out).toEqual([
    `connected state=${State.UP} up=1 starts=1`,
    `published end=${EndReason.SUCCEEDED}`,
    `dropped state=${State.WAITING} upload=${Outcome.AMBIGUOUS} drops=1`,
    `while down upload=${Outcome.TRANSIENT}`,
    `refused reconnects=1 end=${EndReason.PERMANENT} lost=0 fault=0`,
    `no ip state=${State.WAITING} failed=1 reason=201 begins=1 broker=${Outcome.TRANSIENT}`,
    `got ip state=${State.UP} failed=0 kicks=2 broker due before=0 started=1`,
    `wifi dropped state=${State.WAITING} drops=1 reason=8`,
    `late ip timed out=1 forgot=1 failed=1 then state=${State.UP} failed=0 begins=1`,
    `late puback up=1 timed out=1 forgot=1 stale reports=0`,
    // Issue 33 item 6: refused (CONNACK 4), ended PERMANENT, silent through the hold of
    // boards/app/config.json (1 h: the ms before it, none is begun), then a new session on
    // the same client (a reconnect, no second start) that comes up.
    `refused held end=${EndReason.PERMANENT} ended=1 begun early=0 left=1 quiet=1 begun after=1 state=${State.IN_FLIGHT} reconnects=1 starts=0 up=1`,
    // Issue 36 item 6: no CONNACK after TCP is a busy broker, a refused TCP connect a down one.
    `busy connect=${Outcome.THROTTLED} refused connect=${Outcome.TRANSIENT} attempts=2 busy code=${Outcome.THROTTLED}`,
  ]);
}, 120_000);

it("leaves drop and linkUp to the tickretry loop: the session objects do not reference them", () => {
  makeBoards("mqtt");
  const nm = (file: string, ...flags: string[]) =>
    execFileSync("nm", [...flags, `${ROOT}build/native/${file}`], { encoding: "utf8" });
  for (const object of ["mqtt_session", "mqtt_link", "wifi_session"]) {
    expect(nm(`mqtt/${object}.o`, "-u")).not.toMatch(/ tickretry_(drop|link_up)\n/);
  }
  // the program links both, through the loop's session steps only
  for (const name of ["tickretry_drop", "tickretry_link_up"]) {
    expect(nm("mqtt_check")).toMatch(new RegExp(` T ${name}\n`));
    expect(nm("tickretry_loop.o", "-u")).toMatch(new RegExp(` ${name}\n`));
  }
}, 120_000);

// The sessions room (boards/app/sessions.c, test/boards/sessions_check.c) shows a refused
// login as the simulator's BrokerSession.status() does: ended, PERMANENT, the hold left as
// nextTryInMs, and when it was refused (the HAL's system time, as Date.toISOString writes it)
// and what begins it again; a new session begins once the hold is over, not a second before.
it("shows a refused broker session held, then begins a new one after the hold (issue 33, item 6)", () => {
  makeBoards("mqtt");
  const out = execFileSync(`${ROOT}build/native/sessions_check`, { encoding: "utf8" }).trim().split("\n");
  const hold = BROKER_SESSION.refusedHoldMs;
  const detail = `CONNACK refused: code 5; refused at ${new Date(1764672000123 + 3010).toISOString()}: a new session begins when the broker settings change, or ${hold / 60_000} min later`;
  expect(out).toEqual([
    `refused state=ended endReason=PERMANENT nextTryInMs=${hold} held=1 detail=${detail}`,
    "a second later: resumed=0",
    `held state=ended endReason=PERMANENT nextTryInMs=${hold - 1000} held=1 detail=${detail}`,
    "after the hold: resumed=1 starts=1",
    "up again state=up endReason=NONE nextTryInMs=null:0 held=0 detail=CONNACK accepted",
    "reconnects=1 starts=1",
  ]);
}, 120_000);
