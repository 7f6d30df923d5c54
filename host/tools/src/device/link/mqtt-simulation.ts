// The MQTT side of a simulation (`--transport mqtt`): the broker the device talks to (the
// embedded aedes on loopback unless --broker names one), the consumer that stores what
// arrives (started here only with the embedded broker; a named broker has its own), and
// the device's link and policy. The page's "Restart broker" restarts the embedded one.
import type { PolicyFields } from "tickretry";
import { startAedes } from "../../mqtt/aedes.js";
import type { Broker } from "../../mqtt/broker.js";
import { parseBrokerUrl } from "../../mqtt/broker-url.js";
import { CONSUMER_CLIENT_ID, startConsumer, type Consumer } from "../../mqtt/consumer.js";
import { MqttLink } from "./mqtt-link.js";
import type { MqttTransport } from "./mqtt-transport.js";
import { BROKER } from "../policies.js";

export interface MqttOptions {
  /** A broker that runs elsewhere (mqtt://[user:password@]host:port); default: an embedded one. */
  brokerUrl?: string;
  /** The broker policy of a new scheduler (default policies.ts BROKER). */
  policy?: PolicyFields;
}

export interface MqttSide {
  transport: MqttTransport;
  /** The broker started here (undefined with brokerUrl). */
  broker: Broker | undefined;
  consumer: Consumer | undefined;
  close(): Promise<void>;
}

/** Starts what the options ask for; a broker URL that cannot be parsed throws before anything starts. */
export async function startMqtt(options: MqttOptions): Promise<MqttSide> {
  const named = options.brokerUrl === undefined ? undefined : parseBrokerUrl(options.brokerUrl);
  const broker = named === undefined ? await startAedes() : undefined;
  let consumer: Consumer | undefined;
  try {
    consumer = broker && (await startConsumer({ url: broker.url }));
  } catch (err) {
    await broker?.close();
    throw err;
  }
  const own = {
    url: named?.url ?? broker!.url,
    credentials: named?.credentials,
    clientId: `tickretry-device-${process.pid}`,
  };
  const link = new MqttLink(own);
  return {
    transport: {
      link,
      own,
      // The project's consumer takes this id wherever it runs (npx tickretry consumer).
      takenClientIds: [CONSUMER_CLIENT_ID],
      policy: options.policy ?? BROKER,
      brokerUrl: own.url,
    },
    broker,
    consumer,
    async close() {
      link.abort();
      await consumer?.close();
      await broker?.close();
    },
  };
}
