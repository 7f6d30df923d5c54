// The simulated device over MQTT (--transport mqtt) against real brokers: readings
// published with QoS 1 and stored by the consumer under their operation ids; the broker
// connection supervised as a session that drops with a broker restart and comes back,
// readings taken meanwhile waiting (no attempt starts while it is down); and a broker that
// refuses the credentials ending the session PERMANENT, shown in the status; the setup
// page's broker settings taken from the next connect attempt on.
import { afterEach, expect, it } from "vitest";
import { Counter, State } from "tickretry";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import type { DeviceStatus } from "../../../../host/tools/src/device/app/status.js";
import { startMosquitto } from "../../../../host/tools/src/mqtt/mosquitto.js";
import type { Broker } from "../../../../host/tools/src/mqtt/broker.js";
import { QUICK, waitFor } from "../../../helpers/device.js";
import { post, setUp } from "../../../helpers/page.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function simulate(mqtt: { brokerUrl?: string }, uploadEveryMs = 0): Promise<Simulation> {
  const sim = await startSimulation({ port: 0, policy: QUICK, uploadEveryMs, mqtt });
  open.push(sim);
  return sim;
}

const status = async (sim: Simulation): Promise<DeviceStatus> =>
  (await fetch(new URL("/status.json", sim.url))).json() as Promise<DeviceStatus>;

it("publishes each reading once through the embedded broker; the consumer stores it by operation id", async () => {
  const sim = await simulate({});
  expect(sim.upstream).toBeUndefined();
  await waitFor("the session up", async () => (await status(sim)).sessions[0]?.state === "up");
  for (let i = 0; i < 3; i++) sim.device.requests.upload();
  // The consumer may store a reading before its PUBACK reaches the device and ends it.
  await waitFor(
    "three readings stored and ended",
    () => sim.mqtt!.consumer!.stats().stored === 3 && sim.device.uploads.recent.length === 3,
  );
  const stored = sim.mqtt!.consumer!.stored().map((s) => JSON.parse(s.body));
  const readings = sim.device.uploads.recent.map((e) => e.reading).sort((x, y) => x - y);
  expect(stored.map((p) => p.reading)).toEqual(readings);
  expect(new Set(readings).size).toBe(3);
  const ended = sim.device.uploads.recent.map((e) => [String(e.operationId), e.detail]);
  expect(ended.sort()).toEqual(
    sim
      .mqtt!.consumer!.stored()
      .map((s) => [s.key, "PUBACK"])
      .sort(),
  );
  const s = await status(sim);
  expect(s.broker).toMatchObject({ embedded: true, restarts: 0 });
  expect(s.consumer).toMatchObject({ stored: 3, duplicates: 0, unparseable: 0 });
  expect(s.sessions[0]).toMatchObject({
    name: "broker",
    drops: 0,
    lastOutcome: "SUCCESS",
    detail: "CONNACK 0",
  });
  expect(s.sessions[0].upForMs).toBeGreaterThanOrEqual(0);
});

it("holds readings while a restarted broker is down and sends them once the session is up again", async () => {
  const broker: Broker = await startMosquitto();
  open.push(broker);
  const sim = await simulate({ brokerUrl: broker.url });
  const device = sim.device;
  await waitFor("the session up", () => device.session!.up);
  const session = device.session!.handle!;
  const started = device.uploads.host.requestsStarted;
  const dropped = new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (!device.session!.up) resolve(clearInterval(check));
    }, 5);
  });
  const restart = broker.restart(1500);
  await dropped;
  for (let i = 0; i < 4; i++) device.requests.upload();
  await waitFor("the readings queued", () => device.readings.queue.length === 4);
  // Down: the readings wait in the queue; no publish starts.
  expect(device.uploads.host.requestsStarted).toBe(started);
  expect(device.uploads.ops.size).toBe(0);
  await restart;
  await waitFor("the session up again", () => device.session!.up, 15_000);
  await waitFor(
    "the four uploads ended",
    () => device.uploads.recent.length === 4 && device.uploads.ops.size === 0,
    15_000,
  );
  expect(device.uploads.recent.map((e) => [e.attempts, e.detail])).toEqual(Array(4).fill([1, "PUBACK"]));
  const s = (await status(sim)).sessions[0];
  expect(s).toMatchObject({ state: "up", drops: 1, reconnects: 1 });
  // One session throughout: the module's, dropped once and UP again under the same handle.
  expect(device.session!.handle).toBe(session);
  expect(device.running.api.state(session)).toBe(State.UP);
  expect([device.running.api.counter(Counter.DROPS), device.running.api.counter(Counter.RECONNECTS)]).toEqual(
    [1, 1],
  );
  expect(s.attempts).toBeGreaterThanOrEqual(2);
}, 40_000);

it("ends the session PERMANENT when the broker refuses the credentials, and begins no reading", async () => {
  const broker = await startMosquitto({ credentials: { username: "device", password: "right" } });
  open.push(broker);
  const url = broker.url.replace("mqtt://", "mqtt://device:wrong@");
  const sim = await simulate({ brokerUrl: url }, 50);
  const s = await waitFor("the session ended", async () => {
    const st = await status(sim);
    return st.sessions[0]?.state === "ended" && st;
  });
  expect(s.sessions[0]).toMatchObject({ endReason: "PERMANENT", lastOutcome: "PERMANENT", attempts: 1 });
  expect(s.sessions[0].detail).toMatch(/^CONNACK (4|5|134|135) /);
  expect(s.broker).toMatchObject({ url: broker.url, embedded: false });
  await waitFor("readings queued", () => sim.device.readings.queue.length >= 3);
  expect(sim.device.uploads.host.requestsStarted).toBe(0);
});

it("after a refused login, says when; readings wait; new broker settings begin a session at once (issue 33, item 6)", async () => {
  const broker = await startMosquitto({ credentials: { username: "device", password: "right" } });
  open.push(broker);
  const sim = await simulate({ brokerUrl: broker.url.replace("mqtt://", "mqtt://device:wrong@") }, 50);
  const ended = await waitFor("the session ended", async () => {
    const st = await status(sim);
    return st.sessions[0]?.state === "ended" && st;
  });
  expect(ended.sessions[0].endReason).toBe("PERMANENT");
  expect(ended.sessions[0].detail).toMatch(
    /^CONNACK (4|5|134|135) .*; refused at \d{4}-\d\d-\d\dT[\d:.]+Z: a new session begins when the broker settings change, or 60 min later$/,
  );
  expect(ended.sessions[0].nextTryInMs).toBeGreaterThan(3_500_000); // the hour's hold
  await waitFor("readings waiting in the queue", () => sim.device.readings.queue.length >= 3);
  expect(sim.device.uploads.host.requestsStarted).toBe(0);

  await setUp(sim);
  const saved = await post(sim, "/settings", {
    ssid: "home",
    password: "",
    upstreamUrl: "http://127.0.0.1:1/",
    brokerUrl: broker.url,
    brokerUsername: "device",
    brokerPassword: "right",
  });
  expect(saved.status).toBe(200);
  const up = await waitFor("a new session up", async () => {
    const st = await status(sim);
    return st.sessions[0]?.state === "up" && st;
  });
  expect(up.sessions[0].operationId).not.toBe(ended.sessions[0].operationId);
  expect(up.sessions[0].endReason).toBe("NONE");
  await waitFor("the waiting readings sent", () => sim.device.readings.queue.length === 0);
}, 40_000);

it("after a refused login, begins a new session once the hold is over, and counts the readings the full queue drops", async () => {
  const broker = await startMosquitto({ credentials: { username: "device", password: "right" } });
  open.push(broker);
  const sim = await startSimulation({
    port: 0,
    policy: QUICK,
    uploadEveryMs: 20,
    queueLimit: 4,
    brokerRefusedHoldMs: 1500,
    mqtt: { brokerUrl: broker.url.replace("mqtt://", "mqtt://device:wrong@") },
  });
  open.push(sim);
  const first = await waitFor("the first session ended", async () => {
    const st = await status(sim);
    return st.sessions[0]?.state === "ended" && st;
  });
  expect(first.sessions[0].detail).toContain("or 2 s later"); // 1.5 s, rounded up for people
  const again = await waitFor("a second session after the hold", async () => {
    const st = await status(sim);
    return (
      st.sessions[0]?.operationId !== first.sessions[0].operationId && st.sessions[0]?.attempts >= 1 && st
    );
  });
  expect(again.sessions[0].operationId).not.toBe(first.sessions[0].operationId);
  await waitFor("readings dropped and counted", () => sim.device.readings.dropped > 0);
  expect(sim.device.readings.queue.length).toBe(4);
}, 40_000);

it("takes the page's broker settings at the restart they bring: another broker, its user, a refusal PERMANENT", async () => {
  const other = await startMosquitto({ credentials: { username: "device", password: "right" } });
  open.push(other);
  const sim = await simulate({});
  await waitFor(
    "the session up on the embedded broker",
    async () => (await status(sim)).sessions[0]?.state === "up",
  );
  await setUp(sim);
  const boots = (await status(sim)).power.count;
  const fields = {
    ssid: "home",
    password: "",
    upstreamUrl: "http://127.0.0.1:1/",
    brokerTopic: "site/readings",
  };
  const saved = await post(sim, "/settings", {
    ...fields,
    brokerUrl: other.url,
    brokerUsername: "device",
    brokerPassword: "wrong",
  });
  expect(saved.status).toBe(200);
  // New settings restart the device, as they restart the board (asks.ts): the session of
  // the next boot connects to the saved broker first, and is never up.
  const s = await waitFor("the session ended after the restart", async () => {
    const st = await status(sim);
    return st.power.count > boots && st.sessions[0]?.state === "ended" && st;
  });
  expect(s.sessions[0]).toMatchObject({ endReason: "PERMANENT", drops: 0 });
  expect(s.sessions[0].detail).toMatch(/^CONNACK (4|5|134|135) /);
  expect(s.broker?.url).toBe(other.url);
  expect(s.settings).toMatchObject({
    brokerUrl: other.url,
    brokerUsername: "device",
    brokerPasswordSet: true,
  });
  expect(JSON.stringify(s)).not.toContain("wrong");
}, 40_000);
