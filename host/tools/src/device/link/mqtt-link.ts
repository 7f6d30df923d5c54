// The device's broker connection through MQTT.js, shaped for a session: one connect
// attempt at a time (a new client each, MQTT.js's own reconnect off, so tickretry alone
// decides when to try again), its result as an outcome, a drop reported once per
// connection that was up, and QoS 1 publishes whose PUBACK is the attempt's answer.
// CONNACK codes are sorted by whether retrying can ever help: bad credentials, a refused
// client id or protocol are PERMANENT (the session ends and the page says why); "server
// unavailable" and transport errors (the TCP connect refused: the broker is down) are
// TRANSIENT. A busy broker is THROTTLED, as on the board (boards/app/mqtt_session.h; issue
// 36, item 6): MQTT 5's "server busy" and "connection rate exceeded", and a connection it
// took (TCP up) but did not answer with a CONNACK within connackTimeoutMs, or closed first.
import mqtt, { type MqttClient } from "mqtt";
import { Outcome } from "tickretry";
import { BROKER_SESSION } from "../generated/app-config.js";
import type { BrokerCredentials } from "../../mqtt/broker.js";
import type { AttemptResult } from "./http-attempt.js";

export interface MqttLinkOptions {
  url: string;
  credentials?: BrokerCredentials;
  clientId: string;
  /** MQTT.js's own CONNACK wait, ms; the session's attempt timeout normally ends an attempt first. */
  connectTimeoutMs?: number;
  /** The CONNACK's wait once TCP is up, ms (default config.json's brokerSession.connackTimeoutMs). */
  connackTimeoutMs?: number;
}

/** CONNACK codes (3.1.1 and MQTT 5) a retry cannot cure. */
const REFUSED_FOR_GOOD = new Set([1, 2, 4, 5, 128, 129, 130, 132, 133, 134, 135, 138, 140]);
/** MQTT 5 CONNACK "server busy" and "connection rate exceeded": up, but overloaded. */
const BUSY = new Set([0x89, 0x9f]);
/** MQTT 5 PUBACK "quota exceeded": the broker asks the client to slow down. */
const QUOTA_EXCEEDED = 0x97;

/** A failed connect as an outcome: a numeric code is the broker's CONNACK, anything else the transport's. */
export function connectOutcome(err: Error & { code?: unknown }): AttemptResult {
  if (typeof err.code === "number") {
    const outcome = REFUSED_FOR_GOOD.has(err.code)
      ? Outcome.PERMANENT
      : BUSY.has(err.code)
        ? Outcome.THROTTLED
        : Outcome.TRANSIENT;
    return { outcome, retryAfter: 0, detail: `CONNACK ${err.code} (${err.message})` };
  }
  return { outcome: Outcome.TRANSIENT, retryAfter: 0, detail: String(err.code ?? err.message) };
}

/** A publish's callback error as an outcome: no code means the connection closed before the PUBACK. */
export function publishOutcome(err: (Error & { code?: unknown }) | null | undefined): AttemptResult {
  if (!err) return { outcome: Outcome.SUCCESS, retryAfter: 0, detail: "PUBACK" };
  if (typeof err.code === "number") {
    const outcome = err.code === QUOTA_EXCEEDED ? Outcome.THROTTLED : Outcome.PERMANENT;
    return { outcome, retryAfter: 0, detail: `PUBACK ${err.code} (${err.message})` };
  }
  // The PUBLISH may have reached the broker: the retry goes under the same operation id.
  return { outcome: Outcome.AMBIGUOUS, retryAfter: 0, detail: `${err.message} before the PUBACK` };
}

/** Once the client's TCP connection is up, `busy` runs unless a CONNACK (stop()) comes within `ms`. */
function connackWatch(client: MqttClient, ms: number, busy: () => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let tcpUp = false;
  client.stream.once("connect", () => {
    tcpUp = true;
    timer = setTimeout(busy, ms);
  });
  return { tcpUp: () => tcpUp, stop: () => clearTimeout(timer) };
}

export class MqttLink {
  /** Called once when a connection that was up goes down. */
  onDrop: (why: string) => void = () => {};
  private client: MqttClient | undefined;
  private connected = false;

  constructor(private options: MqttLinkOptions) {}

  /** Where the next connect attempt goes (the page's broker settings); a connection up now stays. */
  retarget(changes: Partial<MqttLinkOptions>): void {
    this.options = { ...this.options, ...changes };
  }

  get up(): boolean {
    return this.connected;
  }

  /** Starts one connect attempt (ending any client before it); `done` runs once unless abort() comes first. */
  connect(done: (r: AttemptResult) => void): void {
    this.abort();
    const client = mqtt.connect(this.options.url, {
      clientId: this.options.clientId,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: this.options.connectTimeoutMs ?? 30_000,
      keepalive: 10,
      username: this.options.credentials?.username,
      password: this.options.credentials?.password,
    });
    this.client = client;
    let settled = false;
    const settle = (r: AttemptResult) => {
      watch.stop();
      if (settled || this.client !== client) return;
      settled = true;
      done(r);
    };
    const connackMs = this.options.connackTimeoutMs ?? BROKER_SESSION.connackTimeoutMs;
    const watch = connackWatch(client, connackMs, () => {
      settle({ outcome: Outcome.THROTTLED, retryAfter: 0, detail: `no CONNACK within ${connackMs} ms` });
      if (this.client === client) this.abort();
    });
    client.on("connect", () => {
      this.connected = true;
      settle({ outcome: Outcome.SUCCESS, retryAfter: 0, detail: "CONNACK 0" });
    });
    client.on("error", (err) => settle(connectOutcome(err)));
    client.on("close", () => {
      watch.stop();
      if (this.client !== client) return;
      const outcome = watch.tcpUp() ? Outcome.THROTTLED : Outcome.TRANSIENT;
      settle({ outcome, retryAfter: 0, detail: "closed before the CONNACK" });
      if (this.connected) {
        this.connected = false;
        this.client = undefined;
        this.onDrop("the broker closed the connection");
      }
    });
  }

  /** Ends the current client at once, without a drop: an attempt given up, a cancel, a power-down. */
  abort(): void {
    const client = this.client;
    this.client = undefined;
    this.connected = false;
    client?.end(true);
  }

  /**
   * One QoS 1 publish; `done` runs once with its outcome unless the returned handle is
   * destroyed first (the module timed the attempt out).
   */
  publish(topic: string, payload: string, done: (r: AttemptResult) => void): { destroy(): void } {
    let live = true;
    const settle = (r: AttemptResult) => {
      if (live) {
        live = false;
        done(r);
      }
    };
    const client = this.client;
    if (client === undefined || !this.connected) {
      // Not queued for later: MQTT.js would hold it offline, outside the module's count.
      queueMicrotask(() =>
        settle({ outcome: Outcome.TRANSIENT, retryAfter: 0, detail: "not sent: no broker connection" }),
      );
    } else {
      client.publish(topic, payload, { qos: 1 }, (err) => settle(publishOutcome(err)));
    }
    return { destroy: () => (live = false) };
  }
}
