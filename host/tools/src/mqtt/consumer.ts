// The consumer: the MQTT twin of the upstream's dedup store. It subscribes to the readings
// topic with QoS 1 under a persistent session (clean false, a fixed client id), so the
// broker keeps what arrives while it is away, and stores each reading by its operation id.
// A message under an id already stored is a replay (stored once); a reading stored under
// two ids is a duplicate (begun twice); a payload it cannot parse is counted, kept for
// the page, and acknowledged like any other, so the broker never delivers it again.
// Its own reconnect is MQTT.js's: it is the test's witness, not the device.
import mqtt, { type MqttClient } from "mqtt";
import type { StoredUpload } from "../upstream/server.js";
import type { BrokerCredentials } from "./broker.js";
import { TOPIC, parseReading } from "./payload.js";

/** The consumer's client id unless told otherwise: the device's own clients never take it (app/broker.ts). */
export const CONSUMER_CLIENT_ID = "tickretry-consumer";

export interface ConsumerOptions {
  url: string;
  credentials?: BrokerCredentials;
  /** The persistent session's client id (default CONSUMER_CLIENT_ID). */
  clientId?: string;
  topic?: string;
}

export interface ConsumerStats {
  connected: boolean;
  /** Connections made, the first included. */
  connects: number;
  received: number;
  /** Operation ids stored: one reading each. */
  stored: number;
  /** Messages under an id already stored. */
  replays: number;
  /** Readings stored under more than one operation id. */
  duplicates: number;
  unparseable: number;
}

export interface Unparseable {
  why: string;
  /** The payload's first 120 characters. */
  payload: string;
}

export interface Consumer {
  stats(): ConsumerStats;
  /** Every reading stored: its operation id as the key and the payload stored under it, in order. */
  stored(): StoredUpload[];
  /** The last UNPARSEABLE_KEPT payloads it could not parse, newest last. */
  unparseable(): Unparseable[];
  close(): Promise<void>;
}

const UNPARSEABLE_KEPT = 20;
const RECONNECT_MS = 200;

/** Connects and subscribes; resolves once the subscription stands. */
export async function startConsumer(options: ConsumerOptions): Promise<Consumer> {
  const topic = options.topic ?? TOPIC;
  const byOperation = new Map<string, string>();
  const operationsOf = new Map<number, Set<number>>();
  const bad: Unparseable[] = [];
  const counts = { connects: 0, received: 0, replays: 0, duplicates: 0, unparseable: 0 };

  const take = (payload: Buffer) => {
    counts.received++;
    const r = parseReading(payload);
    if (!r.ok) {
      counts.unparseable++;
      bad.push({ why: r.why, payload: payload.toString().slice(0, 120) });
      if (bad.length > UNPARSEABLE_KEPT) bad.shift();
      return;
    }
    const key = String(r.operationId);
    if (byOperation.has(key)) {
      counts.replays++;
      return;
    }
    byOperation.set(key, payload.toString());
    const ops = operationsOf.get(r.reading) ?? new Set();
    ops.add(r.operationId);
    operationsOf.set(r.reading, ops);
    if (ops.size === 2) counts.duplicates++;
  };

  const client: MqttClient = mqtt.connect(options.url, {
    clientId: options.clientId ?? CONSUMER_CLIENT_ID,
    clean: false,
    reconnectPeriod: RECONNECT_MS,
    username: options.credentials?.username,
    password: options.credentials?.password,
  });
  client.on("connect", () => counts.connects++);
  client.on("message", (_topic, payload) => take(payload));
  await new Promise<void>((resolve, reject) => {
    client.once("connect", () => {
      client.off("error", reject);
      client.subscribe(topic, { qos: 1 }, (err) => (err ? reject(err) : resolve()));
    });
    client.once("error", reject);
  }).catch(async (err: Error) => {
    await client.endAsync(true);
    throw new Error(`consumer: cannot subscribe at ${options.url}: ${err.message}`);
  });
  // Errors after the first connect (a broker restart) are MQTT.js's to reconnect from.
  client.on("error", () => {});

  return {
    stats: () => ({ connected: client.connected, stored: byOperation.size, ...counts }),
    stored: () => [...byOperation].map(([key, body]) => ({ key, body })),
    unparseable: () => [...bad],
    close: () => client.endAsync(),
  };
}
