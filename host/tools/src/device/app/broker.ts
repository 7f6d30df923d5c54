// The setup form's broker settings and their checks, as the firmware has them
// (boards/app/broker.c, run beside these by test/boards/page-native.test.ts):
// the broker an MQTT build connects to and what it publishes under. The password is never
// shown again: the status says only whether one is set. Below them, the broker
// connection's session.
import {
  Breaker,
  EndReason,
  Outcome,
  State,
  endReasonName,
  errorName,
  outcomeName,
  ticksUntil,
  type AttemptAnswer,
  type LoopEvent,
  type TickRetryApi,
} from "tickretry";
import type { AttemptResult } from "../link/http-attempt.js";
import type { MqttLink } from "../link/mqtt-link.js";
import { BROKER_POLICY, BROKER_REFUSED_HOLD_MS } from "../policies.js";

export interface BrokerSettings {
  brokerUrl: string;
  brokerClientId: string;
  brokerUsername: string;
  brokerPassword: string;
  brokerTopic: string;
}

export type BrokerField = keyof BrokerSettings;

/** The topic a board publishes on until one is saved (the consumer's, mqtt/payload.ts). */
export const DEFAULT_BROKER: BrokerSettings = {
  brokerUrl: "",
  brokerClientId: "",
  brokerUsername: "",
  brokerPassword: "",
  brokerTopic: "tickretry/readings",
};

/** As the firmware says it (device_broker_meaning), word for word. */
export const BROKER_MEANINGS: Record<BrokerField, string> = {
  brokerUrl:
    "Broker URL must be empty or mqtt://host:port (or mqtts://), at most 127 characters, with no " +
    "path and no credentials: the user name and password have their own fields.",
  brokerClientId:
    "Client id must be at most 63 printable ASCII characters without spaces (empty: the device's own).",
  brokerUsername: "Broker user name must be at most 63 printable ASCII characters.",
  brokerPassword: "Broker password must be at most 63 printable ASCII characters.",
  brokerTopic:
    "Topic must be 1 to 95 printable ASCII characters, without the wildcards + and #, not starting with $ " +
    "(the broker's own topics, such as $SYS/).",
};

const URL_FORM = /^mqtts?:\/\/[A-Za-z0-9.-]+(?::(\d{1,5}))?\/?$/;

function urlAcceptable(url: string): boolean {
  if (url === "") return true;
  const m = URL_FORM.exec(url);
  const port = m?.[1] === undefined ? 1 : Number(m[1]);
  return m !== null && url.length <= 127 && port >= 1 && port <= 65535;
}

const asciiWithin = (text: string, low: number, most: number) =>
  text.length <= most && [...text].every((c) => c.charCodeAt(0) >= low && c.charCodeAt(0) <= 0x7e);

const CHECKS: Record<BrokerField, (value: string) => boolean> = {
  brokerUrl: urlAcceptable,
  brokerClientId: (v) => asciiWithin(v, 0x21, 63),
  brokerUsername: (v) => asciiWithin(v, 0x20, 63),
  brokerPassword: (v) => asciiWithin(v, 0x20, 63),
  // A broker acknowledges a publish to its own $ topics and drops it (mosquitto denies
  // $SYS/ writes yet sends the PUBACK): readings would end SUCCEEDED and vanish.
  brokerTopic: (v) => v.length >= 1 && asciiWithin(v, 0x20, 95) && !/[+#]/.test(v) && !v.startsWith("$"),
};

/** A client id another of the device's own clients holds: a broker would keep only one of the two connected. */
export const clientIdTaken = (id: string): string =>
  `Client id ${id} is taken by another of the device's own clients (the consumer); choose another, or leave it empty for the device's own.`;

/** As the firmware says it (app_broker_password_cleared), word for word. */
export const BROKER_PASSWORD_CLEARED =
  "Broker password cleared: the stored one was typed for another scheme, host or port; type it again for this broker.";

/**
 * The scheme, host and port a broker URL names, the port spelled out (1883 for mqtt, 8883
 * for mqtts) and the host in lower case; "" for none (the broker the device started with).
 */
export function brokerAuthority(url: string): string {
  const m = /^(mqtts?):\/\/([A-Za-z0-9.-]+)(?::(\d{1,5}))?\/?$/.exec(url);
  if (m === null || !urlAcceptable(url)) return url;
  const port = m[3] === undefined ? (m[1] === "mqtt" ? 1883 : 8883) : Number(m[3]);
  return `${m[1]}://${m[2].toLowerCase()}:${port}`;
}

/** Broker fields checked: the settings, the problem of each bad field, and what was cleared and why. */
export interface CheckedBroker {
  settings: BrokerSettings;
  errors: Partial<Record<BrokerField, string>>;
  cleared: Partial<Record<BrokerField, string>>;
}

/**
 * The broker fields of a setup form: the settings, and the problem of each bad field. A
 * field the form does not carry keeps its `stored` value (a form of the Wi-Fi fields only
 * changes no broker setting), except the password when the URL moves to another scheme,
 * host or port: a stored secret goes only to the broker it was typed for, so it is
 * cleared (and `cleared` says why) unless the form carries one again. `notUtf8` names
 * fields whose bytes were not UTF-8 (never printable ASCII).
 */
export function checkBroker(
  form: URLSearchParams,
  stored: BrokerSettings,
  notUtf8 = new Set<string>(),
  takenClientIds: readonly string[] = [],
): CheckedBroker {
  const settings = { ...stored };
  const errors: Partial<Record<BrokerField, string>> = {};
  for (const field of Object.keys(CHECKS) as BrokerField[]) {
    settings[field] = form.get(field) ?? stored[field];
    if (notUtf8.has(field) || !CHECKS[field](settings[field])) errors[field] = BROKER_MEANINGS[field];
  }
  if (errors.brokerClientId === undefined && takenClientIds.includes(settings.brokerClientId)) {
    errors.brokerClientId = clientIdTaken(settings.brokerClientId);
  }
  const moved = brokerAuthority(settings.brokerUrl) !== brokerAuthority(stored.brokerUrl);
  const cleared: CheckedBroker["cleared"] = {};
  if (moved && stored.brokerPassword !== "" && !form.get("brokerPassword")) {
    settings.brokerPassword = "";
    cleared.brokerPassword = BROKER_PASSWORD_CLEARED;
  }
  return { settings, errors, cleared };
}

/** The broker settings as the status shows them: the password only as set or not. */
export function brokerStatus(b: BrokerSettings) {
  return {
    brokerUrl: b.brokerUrl,
    brokerClientId: b.brokerClientId,
    brokerUsername: b.brokerUsername,
    brokerPasswordSet: b.brokerPassword !== "",
    brokerTopic: b.brokerTopic,
  };
}

// The device's broker connection, supervised by the module as a session (ABI v3): one
// operation under the broker policy (policies.ts) whose attempts are connect attempts. It
// runs through the same main loop as the uploads (host/library/src/loop.ts): poll hands
// out its attempt, the link's answer is collected and reported like an upload's, and the
// loop's "up" event says the connection is established (then the HAL's linkUp tells the
// loop, which kicks the uploads that waited). A lost connection goes back through the
// HAL's dropped, and the loop drops the session: it retries with its backoff level kept; a
// PERMANENT refusal (bad credentials) ends it, as the contract says: the loop releases it, the
// page shows why and when, and readings wait in the queue (counted when it overflows). A new
// session begins at once when the broker settings change (renew), or once the hold is over
// (resume, from the pass). The HAL (sessions.ts) calls the few methods below.
/** What the state file keeps of the session: the module's handle survives a restore. */
export interface StoredSession {
  handle: number;
  operationId: number;
}

export type SessionState = "connecting" | "up" | "backing off" | "breaker open" | "ended";

export interface SessionStatus {
  name: string;
  state: SessionState;
  operationId: number;
  /** Connect attempts of this boot. */
  attempts: number;
  drops: number;
  /** Connects after a drop. */
  reconnects: number;
  /** ms the connection has been up (null: not up). */
  upForMs: number | null;
  /** ms until the next connect attempt (null: not waiting). */
  nextTryInMs: number | null;
  /** The end reason once ended (PERMANENT: the broker refused the credentials), else "NONE". */
  endReason: string;
  lastOutcome: string;
  detail: string;
}

/** What the session needs of the main loop. */
export interface SessionLoop {
  begin(policy: number, now: number): number;
  abandon(handle: number): void;
}

interface ConnectFlight {
  attempt: number;
  result?: AttemptResult;
}

export class BrokerSession {
  handle: number | undefined;
  operationId = 0;
  private api!: TickRetryApi;
  private loop!: SessionLoop;
  private flight: ConnectFlight | undefined;
  private dropPending: string | undefined;
  /** The connection came up since the last pass: the link is back for the uploads. */
  private linkPending = false;
  /** The connection is up (reported SUCCESS, not dropped since). */
  private connected = false;
  private endReason: number = EndReason.NONE;
  private lastOutcome: number = Outcome.NONE;
  private detail = "";
  private counts = { attempts: 0, drops: 0, reconnects: 0 };
  /** The tick the session ended at (undefined while it runs). */
  private endedAt: number | undefined;
  /** The broker settings changed since it ended: begin again at the next pass. */
  private renewPending = false;

  constructor(
    readonly link: MqttLink,
    /** The device's real-time clock, ms since 1970: when a refusal came, for people. */
    private readonly rtcMs: () => number,
    /** How long an ended session waits before a new one (BROKER_REFUSED_HOLD_MS by default). */
    readonly holdMs = BROKER_REFUSED_HOLD_MS,
  ) {
    link.onDrop = (why) => (this.dropPending = why);
  }

  /** True while the broker connection is up: uploads may start. */
  get up(): boolean {
    return this.connected && this.link.up;
  }

  /** At boot: takes the stored session back, or begins one (throws when the module refuses). */
  boot(api: TickRetryApi, loop: SessionLoop, now: number, stored: StoredSession | undefined): void {
    this.api = api;
    this.loop = loop;
    this.flight = undefined;
    this.dropPending = undefined;
    this.linkPending = false;
    this.connected = false;
    this.counts = { attempts: 0, drops: 0, reconnects: 0 };
    if (stored === undefined) return this.begin(now);
    this.handle = stored.handle;
    this.operationId = stored.operationId;
  }

  /** The state to keep, or undefined once the session ended. */
  stored(): StoredSession | undefined {
    return this.handle === undefined ? undefined : { handle: this.handle, operationId: this.operationId };
  }

  owns(h: number): boolean {
    return h === this.handle;
  }

  /** The HAL's startAttempt for the session: one connect attempt. */
  start(attempt: number): void {
    const flight: ConnectFlight = { attempt };
    this.flight = flight;
    this.counts.attempts++;
    this.link.connect((r) => (flight.result = r));
  }

  /** The HAL's collect, before the uploads': the connect attempt's answer once it came. */
  collect(): AttemptAnswer | undefined {
    const f = this.flight;
    if (f?.result === undefined || this.handle === undefined) return undefined;
    this.flight = undefined;
    this.lastOutcome = f.result.outcome;
    this.detail = f.result.detail;
    return { handle: this.handle, attempt: f.attempt, outcome: f.result.outcome, retryAfter: 0 };
  }

  /** The loop's events about the session (true when it was one): it came up, the link's
   * return it told, it ended. */
  sees(e: LoopEvent): boolean {
    if (e.kind === "link-up") return true; // told because the session came up
    if (!this.owns(e.handle)) return false;
    if (e.kind === "up") {
      if (this.counts.drops > 0) this.counts.reconnects++;
      this.connected = true;
      this.linkPending = true;
    }
    if (e.kind === "end") this.ended(e.handle, e.t);
    return true;
  }

  /** The HAL's dropped: the session, once, when its connection went down since the last
   * pass (the loop then drops it; NOT_UP when the module had it down already: a restore
   * that lost the connection). */
  dropped(): number | undefined {
    if (this.dropPending === undefined) return undefined;
    this.detail = this.dropPending;
    this.dropPending = undefined;
    this.connected = false;
    this.counts.drops++;
    return this.handle;
  }

  /** The HAL's linkUp: the broker answered since the last pass, so the uploads that waited
   * for it may go (the loop kicks them). */
  linkUp(): boolean {
    const up = this.linkPending;
    this.linkPending = false;
    return up;
  }

  /** New broker settings: an ended session begins again at the next pass, not after the hold. */
  renew(): void {
    this.renewPending = true;
  }

  /** From the pass (the HAL's beginDue): an ended session begins again once renewed or held long enough. */
  resume(now: number): void {
    if (!this.isEnded() || this.endedAt === undefined) return;
    if (!this.renewPending && this.holdLeft(now) > 0) return;
    this.renewPending = false;
    this.begin(now);
  }

  /** A connect attempt the module no longer counts (timed out, or the session ended): given up. */
  dropStale(): void {
    const h = this.handle;
    if (this.flight === undefined || h === undefined) return;
    if (this.api.state(h) === State.IN_FLIGHT && this.api.attempt(h) === this.flight.attempt) return;
    this.flight = undefined;
    this.detail = "no CONNACK within the attempt timeout";
    this.link.abort();
    this.loop.abandon(h);
  }

  /** Every connection dies with the instance. */
  powerDown(): void {
    this.link.abort();
    this.flight = undefined;
    this.connected = false;
  }

  status(now: number): SessionStatus {
    const h = this.handle;
    const state = h === undefined ? State.DONE : this.api.state(h);
    return {
      name: "broker",
      state: this.stateName(state),
      operationId: this.operationId,
      ...this.counts,
      // While UP, nextAttemptAt is the tick the session came up.
      upForMs: this.up ? Math.max(0, ticksUntil(this.api.nextAttemptAt(h!), now)) : null,
      nextTryInMs: this.isEnded()
        ? this.holdLeft(now)
        : h !== undefined && state === State.WAITING
          ? ticksUntil(now, this.api.nextAttemptAt(h))
          : null,
      endReason: this.isEnded() ? endReasonName(this.endReason) : "NONE",
      lastOutcome: outcomeName(this.lastOutcome),
      detail: this.detail,
    };
  }

  /** ended() handed the session out (the loop releases it): keep why. */
  private ended(h: number, t: number): void {
    this.endReason = this.api.endReason(h);
    this.lastOutcome = this.api.lastOutcome(h);
    this.endedAt = t;
    this.renewPending = false;
    const at = new Date(this.rtcMs()).toISOString();
    const hold =
      this.holdMs >= 60_000
        ? `${Math.round(this.holdMs / 60_000)} min`
        : `${Math.ceil(this.holdMs / 1000)} s`;
    this.detail += `; refused at ${at}: a new session begins when the broker settings change, or ${hold} later`;
    this.handle = undefined;
    this.connected = false;
    this.link.abort();
  }

  /** ms until an ended session begins again by itself; 0 once renewed or the hold is over. */
  private holdLeft(now: number): number {
    if (this.renewPending || this.endedAt === undefined) return 0;
    return Math.max(0, this.holdMs - ticksUntil(this.endedAt, now));
  }

  private isEnded(): boolean {
    return this.handle === undefined && this.endReason !== EndReason.NONE;
  }

  private stateName(state: number): SessionState {
    if (this.up) return "up";
    if (this.isEnded()) return "ended";
    if (state === State.IN_FLIGHT) return "connecting";
    const breaker = this.api.breakerState(BROKER_POLICY);
    return breaker === Breaker.OPEN || breaker === Breaker.PROBING ? "breaker open" : "backing off";
  }

  private begin(now: number): void {
    const h = this.loop.begin(BROKER_POLICY, now);
    if (h < 0) throw new Error(`begin refused the broker policy: ${errorName(h)}`);
    this.handle = h;
    this.operationId = this.api.operationId(h);
    this.endReason = EndReason.NONE;
    this.endedAt = undefined;
  }
}
