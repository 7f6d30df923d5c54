// The device's broker connection, supervised by the module: one operation under the
// broker policy (policies.ts) whose attempts are connect attempts. poll starts them, the
// link's answer is reported like an upload's, a drop sends the connection back to
// retrying with backoff, and a PERMANENT refusal (bad credentials) ends it for good: the
// page shows it and nothing tries again until the settings change or the device restarts
// afresh. Everything the loop needs of it goes through the few methods below, so the
// loop keeps one shape whatever the transport.
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

interface ConnectFlight {
  attempt: number;
  result?: AttemptResult;
}

export class BrokerSession {
  handle: number | undefined;
  operationId = 0;
  private flight: ConnectFlight | undefined;
  private dropPending: string | undefined;
  /** A connect operation to begin once a slot is free (ABI v2: each connection is one). */
  private beginPending = false;
  private upSinceMs: number | undefined;
  private endReason: number = EndReason.NONE;
  private lastOutcome: number = Outcome.NONE;
  private detail = "";
  private counts = { attempts: 0, drops: 0, reconnects: 0 };

  constructor(
    readonly link: MqttLink,
    private api: TickRetryApi,
  ) {
    link.onDrop = (why) => (this.dropPending = why);
  }

  /** True while the broker connection is up: uploads may start. */
  get up(): boolean {
    return this.upSinceMs !== undefined && this.link.up;
  }

  /** At boot: takes the stored session back, or begins one (throws when the module refuses). */
  boot(api: TickRetryApi, now: number, stored: StoredSession | undefined): void {
    this.api = api;
    this.flight = undefined;
    this.dropPending = undefined;
    this.beginPending = false;
    this.upSinceMs = undefined;
    this.counts = { attempts: 0, drops: 0, reconnects: 0 };
    if (stored !== undefined) {
      this.handle = stored.handle;
      this.operationId = stored.operationId;
      return;
    }
    this.begin(now);
  }

  /** The state to keep, or undefined once the session ended. */
  stored(): StoredSession | undefined {
    return this.handle === undefined ? undefined : { handle: this.handle, operationId: this.operationId };
  }

  owns(h: number): boolean {
    return h === this.handle;
  }

  /** poll handed out the session's connect attempt. */
  start(): void {
    const flight: ConnectFlight = { attempt: this.api.attempt(this.handle!) };
    this.flight = flight;
    this.counts.attempts++;
    this.upSinceMs = undefined;
    this.link.connect((r) => (flight.result = r));
  }

  /** Reports the connect answer and the drop that arrived since the last pass. */
  reportAnswers(now: number): void {
    const f = this.flight;
    if (f?.result !== undefined && this.handle !== undefined) {
      this.flight = undefined;
      this.lastOutcome = f.result.outcome;
      this.detail = f.result.detail;
      const r = this.api.report(this.handle, f.attempt, f.result.outcome, 0, now);
      if (r < 0 && r !== AbiError.STALE_REPORT) throw new Error(`session report refused: ${errorName(r)}`);
      if (r === Result.OK && f.result.outcome === Outcome.SUCCESS) this.connected();
    }
    if (this.dropPending !== undefined) {
      this.detail = this.dropPending;
      this.dropPending = undefined;
      this.dropped(now);
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
  }

  /** ended() handed out the session: keep why, release the slot. */
  retire(h: number): void {
    this.endReason = this.api.endReason(h);
    this.lastOutcome = this.api.lastOutcome(h);
    const r = this.api.release(h);
    if (r !== Result.OK) throw new Error(`session release refused: ${errorName(r)}`);
    this.handle = undefined;
    if (this.endReason !== EndReason.SUCCEEDED) this.link.abort();
  }

  /** Every connection dies with the instance. */
  powerDown(): void {
    this.link.abort();
    this.flight = undefined;
    this.upSinceMs = undefined;
  }

  status(now: number): SessionStatus {
    const h = this.handle;
    const state = h === undefined ? State.DONE : this.api.state(h);
    return {
      name: "broker",
      state: this.stateName(state),
      operationId: this.operationId,
      ...this.counts,
      upForMs: this.up ? Math.round(performance.now() - this.upSinceMs!) : null,
      nextTryInMs:
        h !== undefined && state === State.WAITING ? ticksUntil(now, this.api.nextAttemptAt(h)) : null,
      endReason: this.ended() ? endReasonName(this.endReason) : "NONE",
      lastOutcome: outcomeName(this.lastOutcome),
      detail: this.detail,
    };
  }

  private ended(): boolean {
    return this.handle === undefined && this.endReason !== EndReason.SUCCEEDED;
  }

  private stateName(state: number): SessionState {
    if (this.up) return "up";
    if (this.ended()) return "ended";
    return state === State.IN_FLIGHT ? "connecting" : "backing off";
  }

  private begin(now: number): void {
    const h = this.api.begin(BROKER_POLICY, now);
    this.beginPending = h === AbiError.TABLE_FULL;
    if (this.beginPending) return;
    if (h < 0) throw new Error(`begin refused the broker policy: ${errorName(h)}`);
    this.handle = h;
    this.operationId = this.api.operationId(h);
    this.endReason = EndReason.NONE;
  }

  private connected(): void {
    if (this.counts.drops > 0) this.counts.reconnects++;
    this.upSinceMs = performance.now();
  }

  /** ABI v2 has no sessions yet: a connection that went down is a new connect operation. */
  private dropped(now: number): void {
    this.counts.drops++;
    this.upSinceMs = undefined;
    if (this.handle === undefined) this.begin(now);
  }
}
