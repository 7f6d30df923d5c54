// The device's broker connection, supervised by the module: one operation under the
// broker policy (policies.ts) whose attempts are connect attempts. It runs through the
// same main loop as the uploads (host/library/src/loop.ts): poll hands out its attempt,
// the link's answer is collected and reported like an upload's, and the loop retires and
// releases it. A drop sends the connection back to retrying with backoff; a PERMANENT
// refusal (bad credentials) ends it for good: the page shows it, and nothing tries again
// until the device starts afresh. The Device calls the few methods below from its HAL.
import {
  Error as AbiError,
  EndReason,
  Outcome,
  Result,
  State,
  endReasonName,
  errorName,
  outcomeName,
  ticksUntil,
  type AttemptAnswer,
  type LoopEvent,
  type TickRetryApi,
} from "tickretry";
import type { AttemptResult } from "./http-attempt.js";
import type { MqttLink } from "./mqtt-link.js";
import { BROKER_POLICY } from "./policies.js";

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
  /** A connect operation to begin once a slot is free (ABI v2: each connection is one). */
  private beginPending = false;
  /** The tick the connection came up; undefined while it is not up. */
  private upSince: number | undefined;
  private endReason: number = EndReason.NONE;
  private lastOutcome: number = Outcome.NONE;
  private detail = "";
  private counts = { attempts: 0, drops: 0, reconnects: 0 };

  constructor(readonly link: MqttLink) {
    link.onDrop = (why) => (this.dropPending = why);
  }

  /** True while the broker connection is up: uploads may start. */
  get up(): boolean {
    return this.upSince !== undefined && this.link.up;
  }

  /** At boot: takes the stored session back, or begins one (throws when the module refuses). */
  boot(api: TickRetryApi, loop: SessionLoop, now: number, stored: StoredSession | undefined): void {
    this.api = api;
    this.loop = loop;
    this.flight = undefined;
    this.dropPending = undefined;
    this.beginPending = false;
    this.upSince = undefined;
    this.counts = { attempts: 0, drops: 0, reconnects: 0 };
    if (stored === undefined) return this.begin(now);
    this.handle = stored.handle;
    this.operationId = stored.operationId;
  }

  /** The state to keep, or undefined while no connect operation is live. */
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
    this.upSince = undefined;
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

  /** The loop's events about the session (true when it was one): its report and its end. */
  sees(e: LoopEvent): boolean {
    if (!this.owns(e.handle)) return false;
    if (e.kind === "report" && e.result === Result.OK && e.outcome === Outcome.SUCCESS) {
      if (this.counts.drops > 0) this.counts.reconnects++;
      this.upSince = e.t;
    }
    if (e.kind === "end") this.ended(e.handle);
    return true;
  }

  /** The HAL's beginDue, before the readings: a drop that arrived since the last pass. */
  beginDue(now: number): void {
    if (this.dropPending !== undefined) {
      this.detail = this.dropPending;
      this.dropPending = undefined;
      this.counts.drops++;
      this.upSince = undefined;
      // ABI v2 has no sessions yet: a connection that went down is a new connect operation.
      if (this.handle === undefined) this.begin(now);
    }
    if (this.beginPending) this.begin(now);
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
    this.upSince = undefined;
  }

  status(now: number): SessionStatus {
    const h = this.handle;
    const state = h === undefined ? State.DONE : this.api.state(h);
    return {
      name: "broker",
      state: this.stateName(state),
      operationId: this.operationId,
      ...this.counts,
      upForMs: this.up ? Math.max(0, ticksUntil(this.upSince!, now)) : null,
      nextTryInMs:
        h !== undefined && state === State.WAITING ? ticksUntil(now, this.api.nextAttemptAt(h)) : null,
      endReason: this.isEnded() ? endReasonName(this.endReason) : "NONE",
      lastOutcome: outcomeName(this.lastOutcome),
      detail: this.detail,
    };
  }

  /** ended() handed the session out (the loop releases it): keep why. */
  private ended(h: number): void {
    this.endReason = this.api.endReason(h);
    this.lastOutcome = this.api.lastOutcome(h);
    this.handle = undefined;
    if (this.endReason !== EndReason.SUCCEEDED) this.link.abort();
  }

  private isEnded(): boolean {
    return this.handle === undefined && this.endReason !== EndReason.SUCCEEDED && !this.beginPending;
  }

  private stateName(state: number): SessionState {
    if (this.up) return "up";
    if (this.isEnded()) return "ended";
    return state === State.IN_FLIGHT ? "connecting" : "backing off";
  }

  private begin(now: number): void {
    const h = this.loop.begin(BROKER_POLICY, now);
    this.beginPending = h === AbiError.TABLE_FULL;
    if (this.beginPending) return;
    if (h < 0) throw new Error(`begin refused the broker policy: ${errorName(h)}`);
    this.handle = h;
    this.operationId = this.api.operationId(h);
    this.endReason = EndReason.NONE;
  }
}
