// `tickretry consumer` in a process of its own (as the chaos run starts it): it stores what
// a publisher sends through a real mosquitto and serves its store on the control routes.
import mqtt from "mqtt";
import { expect, it } from "vitest";
import { startTickretry, stop } from "../../../../host/tools/src/chaos/processes.js";
import { startMosquitto } from "../../../../host/tools/src/mqtt/mosquitto.js";
import { TOPIC, readingPayload } from "../../../../host/tools/src/mqtt/payload.js";
import { waitFor } from "../../../helpers/device.js";

it("stores readings from a process of its own and stops on SIGTERM", async () => {
  const broker = await startMosquitto();
  const child = await startTickretry(["consumer", "--broker", broker.url], /consumer (http:\S+) /);
  try {
    const client = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    await client.publishAsync(TOPIC, readingPayload(7, { id: 3, celsius: 20.3 }), { qos: 1 });
    await client.endAsync();
    const control = (route: string) => new URL(route, child.ready[1]);
    const stored = await waitFor("the stored reading", async () => {
      const s = (await (await fetch(control("stored"))).json()) as { key: string }[];
      return s.length > 0 && s;
    });
    expect(stored).toEqual([{ key: "7", body: readingPayload(7, { id: 3, celsius: 20.3 }) }]);
    expect(await (await fetch(control("stats"))).json()).toMatchObject({ stored: 1, connected: true });
  } finally {
    expect(await stop(child, "SIGTERM")).toBe(0);
    await broker.close();
  }
}, 30_000);

it("refuses a broker URL it cannot parse with exit code 2 and says why", async () => {
  await expect(startTickretry(["consumer", "--broker", "127.0.0.1:1883"], /consumer/)).rejects.toThrow(
    /exited \(2\)[\s\S]*broker URL "127.0.0.1:1883"/,
  );
}, 30_000);
