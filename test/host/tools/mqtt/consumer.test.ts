// The consumer against a real mosquitto: readings stored by operation id, a second message
// under a stored id counted as a replay, a reading under two ids as a duplicate, a payload
// it cannot parse counted and shown but acknowledged (never delivered again), and what was
// published while it was away (a broker restart) delivered from its persistent session.
import mqtt from "mqtt";
import { afterEach, expect, it } from "vitest";
import { startConsumer, type Consumer } from "../../../../host/tools/src/mqtt/consumer.js";
import { startMosquitto } from "../../../../host/tools/src/mqtt/mosquitto.js";
import type { Broker } from "../../../../host/tools/src/mqtt/broker.js";
import { TOPIC, readingPayload } from "../../../../host/tools/src/mqtt/payload.js";
import { waitFor } from "../../../helpers/device.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setUp(): Promise<{
  broker: Broker;
  consumer: Consumer;
  publish: (p: string) => Promise<void>;
}> {
  const broker = await startMosquitto();
  open.push(broker);
  const consumer = await startConsumer({ url: broker.url });
  open.push(consumer);
  const publish = async (payload: string) => {
    const client = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    await client.publishAsync(TOPIC, payload, { qos: 1 });
    await client.endAsync();
  };
  return { broker, consumer, publish };
}

it("stores by operation id and counts replays, duplicates and unparseable payloads", async () => {
  const { consumer, publish } = await setUp();
  await publish(readingPayload(11, { id: 1, celsius: 20 }));
  await publish(readingPayload(11, { id: 1, celsius: 20 })); // the same operation again: a replay
  await publish(readingPayload(12, { id: 2, celsius: 21 }));
  await publish(readingPayload(13, { id: 2, celsius: 21 })); // reading 2 under a second id
  await publish("{not json");
  await publish(JSON.stringify({ op: -1, reading: 3 }));
  await waitFor("six messages", () => consumer.stats().received === 6);
  expect(consumer.stats()).toMatchObject({ stored: 3, replays: 1, duplicates: 1, unparseable: 2 });
  expect(consumer.stored().map((s) => s.key)).toEqual(["11", "12", "13"]);
  expect(JSON.parse(consumer.stored()[0].body)).toEqual({ op: 11, reading: 1, celsius: 20 });
  expect(consumer.unparseable().map((u) => u.why)).toEqual(["not JSON", "op is not an operation id (-1)"]);
  expect(consumer.unparseable()[0].payload).toBe("{not json");
});

it("gets what was published while it was away, across a broker restart, and no unparseable payload again", async () => {
  const { broker, consumer, publish } = await setUp();
  await publish("garbage");
  await waitFor("the garbage", () => consumer.stats().unparseable === 1);
  await consumer.close();
  open.splice(open.indexOf(consumer), 1);
  // Published while no consumer is connected: the broker queues it in the consumer's
  // session, and its persistence file keeps both over the restart.
  await publish(readingPayload(21, { id: 5, celsius: 20 }));
  await broker.restart();
  const again = await startConsumer({ url: broker.url });
  open.push(again);
  await waitFor("the reading queued over the restart", () => again.stats().stored === 1, 15_000);
  expect(again.stored()[0].key).toBe("21");
  expect(again.stats()).toMatchObject({ received: 1, unparseable: 0 });
});

it("says which broker it cannot subscribe at", async () => {
  const broker = await startMosquitto({ credentials: { username: "u", password: "p" } });
  open.push(broker);
  await expect(startConsumer({ url: broker.url })).rejects.toThrow(
    new RegExp(`consumer: cannot subscribe at ${broker.url}: Connection refused`),
  );
});
