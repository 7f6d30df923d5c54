// The MQTT part of /status.json: each session the device holds (here the broker
// connection; the sketch adds its Wi-Fi), the broker, and the consumer started beside
// it. An HTTP device has no session and null for the other two.
import type { ConsumerStats } from "../mqtt/consumer.js";
import type { SessionStatus } from "./broker-session.js";
import type { Device } from "./loop.js";
import type { MqttSide } from "./mqtt-simulation.js";

export interface BrokerStatus {
  url: string;
  /** True for the embedded broker, which the page's "Restart broker" restarts. */
  embedded: boolean;
  restarts: number;
}

export type ConsumerStatus = Omit<ConsumerStats, "connects">;

export interface MqttStatus {
  sessions: SessionStatus[];
  broker: BrokerStatus | null;
  consumer: ConsumerStatus | null;
}

export function mqttStatus(device: Device, now: number, mqtt: MqttSide | undefined): MqttStatus {
  const c = mqtt?.consumer?.stats();
  return {
    sessions: device.session ? [device.session.status(now)] : [],
    broker: mqtt
      ? {
          url: mqtt.transport.brokerUrl,
          embedded: mqtt.broker !== undefined,
          restarts: mqtt.broker?.restarts() ?? 0,
        }
      : null,
    consumer: c
      ? {
          connected: c.connected,
          received: c.received,
          stored: c.stored,
          replays: c.replays,
          duplicates: c.duplicates,
          unparseable: c.unparseable,
        }
      : null,
  };
}
