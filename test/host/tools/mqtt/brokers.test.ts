// The two brokers the device meets: a real mosquitto started by the test on a loopback
// port with a generated config, and the embedded aedes. Each takes a QoS 1 publish and
// acknowledges it, refuses bad credentials the way it really does, and comes back on the
// same port after a restart.
import mqtt from "mqtt";
import { afterEach, describe, expect, it } from "vitest";
import { startAedes } from "../../../../host/tools/src/mqtt/aedes.js";
import type { Broker } from "../../../../host/tools/src/mqtt/broker.js";
import { startMosquitto } from "../../../../host/tools/src/mqtt/mosquitto.js";

const started: Broker[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.close();
});

async function publishOnce(url: string, opts: mqtt.IClientOptions = {}): Promise<void> {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, ...opts });
  try {
    await client.publishAsync("tickretry/test", "hello", { qos: 1 });
  } finally {
    await client.endAsync();
  }
}

/** The CONNACK code a connect gets (0: accepted). */
async function connackCode(url: string, opts: mqtt.IClientOptions): Promise<number | string> {
  try {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, ...opts });
    await client.endAsync();
    return 0;
  } catch (err) {
    return (err as { code?: number | string }).code ?? String(err);
  }
}

const credentials = { username: "device", password: "s3cret" };
const kinds = [
  ["mosquitto", startMosquitto],
  ["aedes", startAedes],
] as const;

describe.each(kinds)("%s", (_kind, start) => {
  it("acknowledges a QoS 1 publish, and again after a restart on the same port", async () => {
    const broker = await start();
    started.push(broker);
    expect(broker.url).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
    await publishOnce(broker.url);
    const client = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    await broker.restart();
    await closed; // the restart dropped the client
    expect(broker.restarts()).toBe(1);
    await publishOnce(broker.url);
    await client.endAsync(true);
  });

  it("refuses a wrong password with CONNACK 4 or 5 (134 or 135 under MQTT 5) and takes the right one", async () => {
    const broker = await start({ credentials });
    started.push(broker);
    expect(await connackCode(broker.url, { username: "device", password: "wrong" })).toBeOneOf([
      4, 5, 134, 135,
    ]);
    expect(await connackCode(broker.url, credentials)).toBe(0);
  });
});
