// The device's broker connection against a real mosquitto: a connect attempt's outcome
// (SUCCESS; PERMANENT for bad credentials, whatever CONNACK code the broker picks;
// TRANSIENT when nothing listens; THROTTLED when a broker took the connection but sends no
// CONNACK, or says it is busy), one drop per connection lost in a broker restart, and a QoS
// 1 publish answered by its PUBACK, or refused at once when there is no connection.
import { createServer, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { Outcome } from "tickretry";
import { connectOutcome, MqttLink } from "../../../../host/tools/src/device/link/mqtt-link.js";
import type { AttemptResult } from "../../../../host/tools/src/device/link/http-attempt.js";
import { startMosquitto } from "../../../../host/tools/src/mqtt/mosquitto.js";
import type { Broker } from "../../../../host/tools/src/mqtt/broker.js";

const open: { close(): Promise<void> }[] = [];
const links: MqttLink[] = [];
afterEach(async () => {
  for (const l of links.splice(0)) l.abort();
  for (const o of open.splice(0)) await o.close();
});

async function broker(credentials?: { username: string; password: string }): Promise<Broker> {
  const b = await startMosquitto({ credentials });
  open.push(b);
  return b;
}

function link(url: string, credentials?: { username: string; password: string }): MqttLink {
  const l = new MqttLink({ url, credentials, clientId: `link-test-${links.length}` });
  links.push(l);
  return l;
}

const connect = (l: MqttLink) => new Promise<AttemptResult>((resolve) => l.connect(resolve));
const publish = (l: MqttLink, payload: string) =>
  new Promise<AttemptResult>((resolve) => l.publish("tickretry/test", payload, resolve));

it("connects, publishes with a PUBACK, and reports one drop when the broker restarts", async () => {
  const b = await broker();
  const l = link(b.url);
  expect(await connect(l)).toMatchObject({ outcome: Outcome.SUCCESS, detail: "CONNACK 0" });
  expect(l.up).toBe(true);
  expect(await publish(l, "x")).toEqual({ outcome: Outcome.SUCCESS, retryAfter: 0, detail: "PUBACK" });
  const drops: string[] = [];
  const dropped = new Promise<void>((resolve) => (l.onDrop = (why) => (drops.push(why), resolve())));
  await b.restart();
  await dropped;
  expect(drops).toEqual(["the broker closed the connection"]);
  expect(l.up).toBe(false);
  expect(await publish(l, "y")).toMatchObject({
    outcome: Outcome.TRANSIENT,
    detail: "not sent: no broker connection",
  });
  expect(await connect(l)).toMatchObject({ outcome: Outcome.SUCCESS });
});

it("ends with PERMANENT on bad credentials and TRANSIENT when nothing listens", async () => {
  const credentials = { username: "device", password: "right" };
  const b = await broker(credentials);
  const refused = await connect(link(b.url, { ...credentials, password: "wrong" }));
  expect(refused.outcome).toBe(Outcome.PERMANENT);
  expect(refused.detail).toMatch(/^CONNACK (4|5|134|135) \(Connection refused: /);
  expect(await connect(link(b.url, credentials))).toMatchObject({ outcome: Outcome.SUCCESS });
  await b.close();
  open.length = 0;
  expect(await connect(link(b.url))).toMatchObject({ outcome: Outcome.TRANSIENT, detail: "ECONNREFUSED" });
});

/** A TCP server that takes connections and does `withSocket` to each (nothing: no CONNACK). */
async function silentBroker(withSocket: (s: Socket) => void = () => {}): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => (sockets.add(socket), withSocket(socket)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  open.push({ close });
  const { port } = server.address() as { port: number };
  return `mqtt://127.0.0.1:${port}`;
}

it("ends THROTTLED when the broker took the connection but sends no CONNACK, or closes it first", async () => {
  const url = await silentBroker();
  const l = new MqttLink({ url, clientId: "link-test-busy", connackTimeoutMs: 300 });
  links.push(l);
  const started = Date.now();
  expect(await connect(l)).toEqual({
    outcome: Outcome.THROTTLED,
    retryAfter: 0,
    detail: "no CONNACK within 300 ms",
  });
  expect(Date.now() - started).toBeLessThan(3000);
  const closing = await silentBroker((socket) => socket.destroy());
  expect(await connect(link(closing))).toMatchObject({
    outcome: Outcome.THROTTLED,
    detail: "closed before the CONNACK",
  });
});

it("takes MQTT 5's server busy and connection rate exceeded for THROTTLED, server unavailable for TRANSIENT", () => {
  const outcome = (code: number) => connectOutcome(Object.assign(new Error("refused"), { code })).outcome;
  expect([0x89, 0x9f, 3, 0x88].map(outcome)).toEqual([
    Outcome.THROTTLED,
    Outcome.THROTTLED,
    Outcome.TRANSIENT,
    Outcome.TRANSIENT,
  ]);
});
