// The setup page's broker settings under issue 34's probe, against real brokers on loopback:
// a stored broker password never follows the URL to another broker (a capture broker sees
// none), and the page is told why the field was cleared.
import { createServer, type Server, type Socket } from "node:net";
import { Aedes } from "aedes";
import { afterEach, expect, it } from "vitest";
import {
  BROKER_MEANINGS,
  BROKER_PASSWORD_CLEARED,
  clientIdTaken,
} from "../../../../host/tools/src/device/app/broker.js";
import { CONSUMER_CLIENT_ID } from "../../../../host/tools/src/mqtt/consumer.js";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { QUICK, waitFor } from "../../../helpers/device.js";
import { post, setUp } from "../../../helpers/page.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function simulate(): Promise<Simulation> {
  const sim = await startSimulation({ port: 0, policy: QUICK, uploadEveryMs: 0, mqtt: {} });
  open.push(sim);
  return sim;
}

interface Capture {
  url: string;
  seen: { clientId: string; username?: string; password?: string }[];
  /** Closes every client's connection, as a broker restart would. */
  kick(): void;
}

/** A real broker (aedes) that takes every client and records who connected with what. */
async function captureBroker(): Promise<Capture> {
  const broker = await Aedes.createBroker();
  const seen: Capture["seen"] = [];
  broker.authenticate = (client, username, password, done) => {
    seen.push({ clientId: client.id, username, password: password?.toString() });
    done(null, true);
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    broker.handle(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        broker.close(() => server.close(() => resolve()));
      }),
  });
  const url = `mqtt://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, seen, kick: () => sockets.forEach((s) => s.destroy()) };
}

const WIFI = { ssid: "home", password: "", upstreamUrl: "http://127.0.0.1:1/" };

it("drops the stored broker password when only the URL moves to another broker; the page is told why (issue 34, item 1)", async () => {
  const capture = await captureBroker();
  const sim = await simulate();
  await setUp(sim);
  const first = await post(sim, "/settings", {
    ...WIFI,
    brokerUrl: sim.mqtt!.broker!.url,
    brokerUsername: "dev",
    brokerPassword: "devpass",
  });
  expect(first.status).toBe(200);
  expect((await first.json()).fields).toBeUndefined();
  // Only the URL changes (as a script posts it, without the password field).
  const moved = await post(sim, "/settings", { ...WIFI, brokerUrl: capture.url });
  expect(moved.status).toBe(200);
  expect(await moved.json()).toMatchObject({ ok: true, fields: { brokerPassword: BROKER_PASSWORD_CLEARED } });
  expect(sim.device.settings.current).toMatchObject({ brokerUsername: "dev", brokerPassword: "" });
  await sim.mqtt!.broker!.restart(); // the drop: the next connect goes to the saved broker
  await waitFor("a connect at the capture broker", () => capture.seen.length > 0);
  expect(capture.seen.every((c) => c.password === undefined || c.password === "")).toBe(true);
  expect(JSON.stringify(capture.seen)).not.toContain("devpass");

  // Typed again with the new URL, it is kept; the same broker spelled another way keeps it too.
  const again = await post(sim, "/settings", { ...WIFI, brokerUrl: capture.url, brokerPassword: "newpass" });
  expect((await again.json()).fields).toBeUndefined();
  const spelled = await post(sim, "/settings", { ...WIFI, brokerUrl: `${capture.url}/` });
  expect((await spelled.json()).fields).toBeUndefined();
  expect(sim.device.settings.current.brokerPassword).toBe("newpass");
}, 40_000);

it("refuses the consumer's client id, and an emptied client id is the device's own again at the next connect (issue 34, item 5)", async () => {
  const capture = await captureBroker();
  const sim = await simulate();
  await setUp(sim);
  const taken = await post(sim, "/settings", { ...WIFI, brokerClientId: CONSUMER_CLIENT_ID });
  expect(taken.status).toBe(400);
  expect((await taken.json()).fields).toEqual({ brokerClientId: clientIdTaken(CONSUMER_CLIENT_ID) });
  expect(sim.device.settings.current.brokerClientId).toBe("");

  const custom = await post(sim, "/settings", { ...WIFI, brokerUrl: capture.url, brokerClientId: "board-7" });
  expect(custom.status).toBe(200);
  await sim.mqtt!.broker!.restart();
  await waitFor("a connect as board-7", () => capture.seen.some((c) => c.clientId === "board-7"));
  const emptied = await post(sim, "/settings", { ...WIFI, brokerUrl: capture.url, brokerClientId: "" });
  expect(emptied.status).toBe(200);
  capture.kick(); // no restart of the device: the next connect attempt takes the settings
  const own = `tickretry-device-${process.pid}`;
  await waitFor("a connect under the device's own id", () => capture.seen.at(-1)?.clientId === own);
}, 40_000);

it("refuses a topic under $ by name: a broker acknowledges and drops such publishes (issue 34, item 6)", async () => {
  const sim = await simulate();
  await setUp(sim);
  for (const topic of ["$SYS/broker/readings", "$share/readings"]) {
    const res = await post(sim, "/settings", { ...WIFI, brokerTopic: topic });
    expect([topic, res.status]).toEqual([topic, 400]);
    expect((await res.json()).fields).toEqual({ brokerTopic: BROKER_MEANINGS.brokerTopic });
  }
  expect(BROKER_MEANINGS.brokerTopic).toContain("not starting with $");
  expect(sim.device.settings.current.brokerTopic).toBe("tickretry/readings");
}, 40_000);
