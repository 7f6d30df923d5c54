// The MQTT transport of the simulated device (`--transport mqtt`): each reading is one
// upload operation whose attempt is one QoS 1 publish of its payload (operation id
// included, mqtt/payload.ts); the PUBACK is the attempt's answer, and the module's attempt
// timeout ends an attempt whose PUBACK does not come. The connection under it is the
// broker session's (app/broker.ts, BrokerSession).
import type { PolicyFields } from "tickretry";
import type { BrokerCredentials } from "../../mqtt/broker.js";
import { parseBrokerUrl } from "../../mqtt/broker-url.js";
import { TOPIC, readingPayload } from "../../mqtt/payload.js";
import type { BrokerSettings } from "../app/broker.js";
import type { AttemptResult } from "./http-attempt.js";
import type { MqttLink } from "./mqtt-link.js";

export interface MqttTransport {
  link: MqttLink;
  /** What the device started with: an emptied field of the page goes back to it at once. */
  own: { url: string; credentials?: BrokerCredentials; clientId: string };
  /** Client ids the device's other clients hold (the consumer's): a broker drops one of two clients under one id. */
  takenClientIds: readonly string[];
  /** The broker policy a new scheduler gets (policies.ts BROKER, scaled). */
  policy: PolicyFields;
  /** Where the broker is, for people (no credentials). */
  brokerUrl: string;
  topic?: string;
}

/**
 * The setup page's broker settings, from the next connect attempt on (a board takes them at
 * its restart): the broker, its user and password, the client id and the topic. An empty
 * broker URL is the broker the device started with (and its credentials), an empty client
 * id the device's own.
 */
export function useBrokerSettings(t: MqttTransport, b: BrokerSettings): void {
  const credentials =
    b.brokerUsername === "" ? undefined : { username: b.brokerUsername, password: b.brokerPassword };
  // Checked on the form: it parses.
  const broker = b.brokerUrl === "" ? t.own : { url: parseBrokerUrl(b.brokerUrl).url, credentials };
  const clientId = b.brokerClientId === "" ? t.own.clientId : b.brokerClientId;
  t.link.retarget({ url: broker.url, credentials: broker.credentials, clientId });
  t.brokerUrl = broker.url;
  t.topic = b.brokerTopic;
}

/** One attempt of a reading's upload: its publish, answered through `done` unless destroyed first. */
export function publishReading(
  t: MqttTransport,
  operationId: number,
  reading: { id: number; celsius: number },
  done: (r: AttemptResult) => void,
): { destroy(): void } {
  return t.link.publish(t.topic ?? TOPIC, readingPayload(operationId, reading), done);
}
