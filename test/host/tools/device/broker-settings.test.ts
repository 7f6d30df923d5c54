// The setup page's broker settings under issue 34's probe, against real brokers on loopback:
// a stored broker password never follows the URL to another broker (a capture broker sees
// none), and the page is told why the field was cleared.
import { createServer, type Server } from "node:net";
import { Aedes } from "aedes";
import { afterEach, expect, it } from "vitest";
import { BROKER_PASSWORD_CLEARED } from "../../../../host/tools/src/device/app/broker.js";
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

/** A real broker (aedes) that takes every client and records the credentials each connect carried. */
async function captureBroker(): Promise<{ url: string; seen: { username?: string; password?: string }[] }> {
  const broker = await Aedes.createBroker();
  const seen: { username?: string; password?: string }[] = [];
  broker.authenticate = (_client, username, password, done) => {
    seen.push({ username, password: password?.toString() });
    done(null, true);
  };
  const server: Server = createServer((socket) => broker.handle(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push({
    close: () => new Promise<void>((resolve) => broker.close(() => server.close(() => resolve()))),
  });
  return { url: `mqtt://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
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
