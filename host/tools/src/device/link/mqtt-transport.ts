// The MQTT transport of the simulated device (`--transport mqtt`): each reading is one
// upload operation whose attempt is one QoS 1 publish of its payload (operation id
// included, mqtt/payload.ts); the PUBACK is the attempt's answer, and the module's attempt
// timeout ends an attempt whose PUBACK does not come. The connection under it is the
// broker session's (app/broker.ts, BrokerSession).
import type { PolicyFields } from "tickretry";
import { parseBrokerUrl } from "../../mqtt/broker-url.js";
import { TOPIC, readingPayload } from "../../mqtt/payload.js";
import type { BrokerSettings } from "../app/broker.js";
import type { AttemptResult } from "./http-attempt.js";
import type { MqttLink } from "./mqtt-link.js";

export interface MqttTransport {
  link: MqttLink;
  /** The broker policy a new scheduler gets (policies.ts BROKER, scaled). */
  policy: PolicyFields;
  /** Where the broker is, for people (no credentials). */
  brokerUrl: string;
  topic?: string;
}

/**
 * The setup page's broker settings, from the next connect attempt on (a board takes them at
 * its restart): the broker, its user and password, the client id (empty keeps the device's)
 * and the topic. An empty broker URL keeps the broker the device started with.
 */
export function useBrokerSettings(t: MqttTransport, b: BrokerSettings): void {
  if (b.brokerUrl === "") return;
  const { url } = parseBrokerUrl(b.brokerUrl); // checked on the form: it parses
  const credentials =
    b.brokerUsername === "" ? undefined : { username: b.brokerUsername, password: b.brokerPassword };
  t.link.retarget({ url, credentials, ...(b.brokerClientId === "" ? {} : { clientId: b.brokerClientId }) });
  t.brokerUrl = url;
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
