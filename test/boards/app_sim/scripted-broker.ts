// The simulator's broker in the application differential: host_broker.c's scripted broker as
// the device's MqttLink, so that both sides of an MQTT scenario (test/app-scenarios/) meet the
// same script. A connect and a PUBACK come ANSWER_MS after they were asked, on the device's
// clock, as the broker is then: up (CONNACK 0), down (the connection refused: TRANSIENT) or
// refusing the login with a CONNACK code. Taking it down drops a connection up at once, its
// publishes without a PUBACK (AMBIGUOUS). Each published body is stored once per key and
// said, as host_broker.c's is.
import { Outcome } from "../../../host/library/src/index.js";
import type { DeviceClock } from "../../../host/tools/src/device/clock.js";
import type { AttemptResult } from "../../../host/tools/src/device/link/http-attempt.js";
import { MqttLink, connectOutcome } from "../../../host/tools/src/device/link/mqtt-link.js";

/** host_broker.h's HOST_BROKER_ANSWER_MS. */
export const ANSWER_MS = 100;

export const BROKER_STATES = ["up", "down", "refuse"] as const;
export type BrokerState = (typeof BROKER_STATES)[number];

export class ScriptedBroker extends MqttLink {
  private state: BrokerState = "up";
  private code = 0;
  /** The connection (or handshake) now: a newer one cancels the answers of the older. */
  private connection = 0;
  private linked = false;
  /** Publishes waiting for their PUBACK on this connection. */
  private readonly inFlight = new Set<(r: AttemptResult) => void>();
  private readonly keys = new Set<string>();

  constructor(
    private readonly clock: DeviceClock,
    private readonly say: (line: string) => void,
    private readonly seqOf: (readingId: number) => number,
    /** The board's key of an upload (scripted-upstream.ts). */
    private readonly keyOf: (operationId: number) => string,
  ) {
    super({ url: "mqtt://broker.invalid", clientId: "a0b1c2d3e4f5" });
  }

  override get up(): boolean {
    return this.linked;
  }

  /** "broker up|down|refuse CODE". */
  set(state: BrokerState, code: number): void {
    this.state = state;
    this.code = code;
    if (state === "up" || !this.linked) return;
    const lost = [...this.inFlight];
    this.abort();
    for (const done of lost)
      done({ outcome: Outcome.AMBIGUOUS, retryAfter: 0, detail: "connection closed before the PUBACK" });
    this.onDrop("the broker closed the connection");
  }

  override connect(done: (r: AttemptResult) => void): void {
    this.abort();
    const connection = this.connection;
    this.clock.after(ANSWER_MS, () => {
      if (connection !== this.connection) return;
      if (this.state === "up") this.linked = true;
      done(this.answer());
    });
  }

  /** The client ends the connection (no drop said): what was in flight never answers. */
  override abort(): void {
    this.connection++;
    this.linked = false;
    this.inFlight.clear();
  }

  override publish(_topic: string, payload: string, done: (r: AttemptResult) => void): { destroy(): void } {
    let live = true;
    const settle = (r: AttemptResult) => {
      if (live) ((live = false), done(r));
    };
    if (!this.linked) {
      queueMicrotask(() => settle({ outcome: Outcome.TRANSIENT, retryAfter: 0, detail: "not sent" }));
      return { destroy: () => (live = false) };
    }
    this.store(JSON.parse(payload) as { op: number; reading: number });
    this.inFlight.add(settle);
    const connection = this.connection;
    this.clock.after(ANSWER_MS, () => {
      if (connection !== this.connection || !this.inFlight.delete(settle)) return;
      settle({ outcome: Outcome.SUCCESS, retryAfter: 0, detail: "PUBACK" });
    });
    return { destroy: () => (live = false) };
  }

  private answer(): AttemptResult {
    if (this.state === "up") return { outcome: Outcome.SUCCESS, retryAfter: 0, detail: "CONNACK 0" };
    if (this.state === "refuse")
      return connectOutcome(Object.assign(new Error("refused"), { code: this.code }));
    return { outcome: Outcome.TRANSIENT, retryAfter: 0, detail: "ECONNREFUSED" };
  }

  private store(p: { op: number; reading: number }): void {
    const key = this.keyOf(p.op);
    const seen = this.keys.has(key);
    this.keys.add(key);
    this.say(`server ${seen ? "duplicate" : "stored"} key ${key} seq ${this.seqOf(p.reading)}`);
  }
}
