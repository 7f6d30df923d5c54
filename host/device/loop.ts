// The simulated device's main loop, shaped like the firmware's: each pass reads the
// tick, reports the answers that arrived since the last pass, begins the periodic
// upload when it is due, starts one HTTP request per handle poll returns (never waiting
// for it), drops requests whose attempt the module has timed out, releases ended
// operations, and schedules the next pass no later than nextDue. Everything else (the
// setup page) runs in the event loop between passes, as it would between loop() calls.
import type { ClientRequest } from "node:http";
import { Error as AbiError, NextDue, OpFlag, State } from "../abi.js";
import { readFileSync } from "node:fs";
import { instantiate, seedHalves, WASM_PATH, type TickRetryApi } from "../tickretry.js";
import { tickAfter, tickReached, ticksUntil } from "../ticks.js";
import { keepAliveAgents, startAttempt, type AttemptResult } from "./http-attempt.js";
import { EventLog } from "./events.js";
import { LoopStats } from "./loop-stats.js";
import { endReasonName, outcomeName } from "../names.js";
import type { PolicyFields } from "../policy.js";
import { configureUpload, UPLOAD, UPLOAD_POLICY, type BudgetName } from "./policies.js";
import type { Settings } from "./settings.js";
import { WallTick } from "./wall-tick.js";

/** The longest main-loop stall the page or the command line may ask for, ms. */
export const MAX_STALL_MS = 60_000;

export interface DeviceOptions {
  upstreamUrl: string;
  /** Seeds the module (a board uses its hardware RNG and MAC); random by default. */
  seed?: bigint;
  /** First tick (default DEFAULT_TICK_START, 20 s before the wrap). */
  tickStart?: number;
  policy?: PolicyFields;
  budget?: BudgetName;
  /** Begin a sensor upload this often, ms; 0: only when asked (default 3000). */
  uploadEveryMs?: number;
  /** Longest nap between passes when nothing is due, ms (default 5, like delay(5)). */
  idleSleepMs?: number;
  /** Called when an operation ends, before its slot is released. */
  onEnd?: (op: EndedOperation) => void;
}

interface Flight {
  attempt: number;
  req: ClientRequest;
  result?: AttemptResult;
}

interface Tracked {
  handle: number;
  operationId: number;
  begunMs: number;
  /** The latest attempt's answer, for people. */
  detail: string;
  flight?: Flight;
}

export interface EndedOperation {
  operationId: number;
  endReason: number;
  attempts: number;
  lastOutcome: number;
  detail: string;
  /** Wall time from begin to end, ms. */
  tookMs: number;
}

/** Host-side counts the module does not keep. */
export interface HostCounts {
  requestsStarted: number;
  /** Requests dropped because the module timed their attempt out. */
  requestsAbandoned: number;
  /** Uploads not begun because every slot was taken. */
  uploadsSkipped: number;
}

const RECENT = 20;

export class Device {
  api: TickRetryApi;
  /** The module running, as the page's playground fetches it. */
  moduleBytes: Buffer = readFileSync(WASM_PATH);
  private readonly seed: bigint;
  readonly tick: WallTick;
  readonly loopStats = new LoopStats();
  readonly policy: PolicyFields;
  readonly budget: BudgetName;
  private readonly uploadEveryMs: number;
  settings: Settings;
  readonly ops = new Map<number, Tracked>();
  readonly recent: EndedOperation[] = [];
  readonly events = new EventLog();
  readonly host: HostCounts = { requestsStarted: 0, requestsAbandoned: 0, uploadsSkipped: 0 };

  private readonly agents = keepAliveAgents();
  private readonly idleSleepMs: number;
  private readonly onEnd?: (op: EndedOperation) => void;
  private nextUploadAt: number | undefined;
  private uploadsAsked = 0;
  private stallAsked = 0;
  private cancelNextPass: (() => void) | undefined;
  private running = false;
  private sample = 0;

  constructor(options: DeviceOptions) {
    this.seed = options.seed ?? crypto.getRandomValues(new BigUint64Array(1))[0];
    this.api = instantiate();
    this.api.init(...seedHalves(this.seed));
    this.policy = options.policy ?? UPLOAD;
    this.budget = options.budget ?? "aws";
    configureUpload(this.api, this.policy, this.budget);
    this.tick = new WallTick(options.tickStart);
    this.uploadEveryMs = options.uploadEveryMs ?? 3000;
    this.idleSleepMs = options.idleSleepMs ?? 5;
    this.onEnd = options.onEnd;
    this.settings = { ssid: "", password: "", upstreamUrl: options.upstreamUrl };
  }

  start(): void {
    this.running = true;
    this.schedule(0);
  }

  /** Stops the loop: ends every live operation CANCELLED (each seen by onEnd) and drops its request. */
  stop(): void {
    if (this.running) this.cancelLive();
    this.running = false;
    this.cancelNextPass?.();
    for (const op of this.ops.values()) op.flight?.req.destroy();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Asks for one more upload at the next pass (a button press, a test). */
  requestUpload(): void {
    this.uploadsAsked++;
  }

  /** Blocks the next pass for `ms`, as a slow flash write blocks a firmware loop. */
  requestStall(ms: number): void {
    this.stallAsked = Math.max(this.stallAsked, ms);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    if (ms <= 0) {
      const immediate = setImmediate(this.pass);
      this.cancelNextPass = () => clearImmediate(immediate);
    } else {
      const timeout = setTimeout(this.pass, ms);
      this.cancelNextPass = () => clearTimeout(timeout);
    }
  }

  private readonly pass = (): void => {
    this.loopStats.passStarted(performance.now());
    const api = this.api;
    const now = this.tick.read();

    this.reportAnswers(now);
    this.beginUploads(now);
    for (let h = api.poll(now); h >= 0; h = api.poll(now)) this.startRequest(h, now);
    this.dropTimedOut();
    this.releaseEnded();

    const stall = this.stallAsked;
    this.stallAsked = 0;
    if (stall > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, stall);
    this.loopStats.passEnded(performance.now(), stall > 0);

    const due = api.nextDue(now);
    let sleep = due === NextDue.IDLE ? this.idleSleepMs : Math.min(due, this.idleSleepMs);
    if (this.nextUploadAt !== undefined)
      sleep = Math.min(sleep, Math.max(0, ticksUntil(now, this.nextUploadAt)));
    this.schedule(sleep);
  };

  private reportAnswers(now: number): void {
    for (const op of this.ops.values()) {
      const f = op.flight;
      if (f?.result === undefined) continue;
      op.flight = undefined;
      op.detail = f.result.detail;
      // STALE_REPORT (the answer came after its attempt deadline) is counted by the module;
      // any other refusal is a bug of this loop.
      this.events.add(now, "answer", op.operationId, f.attempt, outcomeName(f.result.outcome));
      const r = this.api.report(op.handle, f.attempt, f.result.outcome, f.result.retryAfter, now);
      if (r < 0 && r !== AbiError.STALE_REPORT) throw new Error(`report refused: ${r}`);
    }
  }

  private beginUploads(now: number): void {
    if (this.uploadEveryMs > 0 && (this.nextUploadAt === undefined || tickReached(now, this.nextUploadAt))) {
      this.uploadsAsked++;
      this.nextUploadAt = tickAfter(now, this.uploadEveryMs);
    }
    for (; this.uploadsAsked > 0; this.uploadsAsked--) {
      const h = this.api.begin(UPLOAD_POLICY, now);
      if (h === AbiError.TABLE_FULL) {
        this.host.uploadsSkipped++;
        continue;
      }
      if (h < 0) throw new Error(`begin refused the upload policy: ${h}`);
      const operationId = this.api.operationId(h);
      this.ops.set(h, { handle: h, operationId, begunMs: performance.now(), detail: "" });
      this.events.add(now, "begin", operationId, 0);
    }
  }

  private startRequest(h: number, now: number): void {
    const op = this.ops.get(h)!;
    // The previous attempt timed out in this very poll and its retry was due at once.
    if (op.flight !== undefined) this.abandon(op, op.flight);
    const attempt = this.api.attempt(h);
    this.events.add(now, "start", op.operationId, attempt);
    const sample = this.sample++;
    const reading = { sample, celsius: 20 + (sample % 50) / 10 };
    const flight: Flight = {
      attempt,
      req: startAttempt(
        {
          url: this.settings.upstreamUrl,
          operationId: op.operationId,
          attempt,
          body: JSON.stringify(reading),
          classifyHttp: this.api.classifyHttp,
          agents: this.agents,
        },
        (result) => (flight.result = result),
      ),
    };
    op.flight = flight;
    this.host.requestsStarted++;
  }

  /** A request whose attempt is no longer the one in flight will never count: free its socket. */
  private dropTimedOut(): void {
    for (const op of this.ops.values()) {
      const f = op.flight;
      if (f === undefined) continue;
      if (this.api.state(op.handle) === State.IN_FLIGHT && this.api.attempt(op.handle) === f.attempt)
        continue;
      this.abandon(op, f);
    }
  }

  private abandon(op: Tracked, f: Flight): void {
    op.flight = undefined;
    op.detail = "no answer within the attempt timeout";
    f.req.destroy();
    this.host.requestsAbandoned++;
    this.events.add(this.tick.read(), "timeout", op.operationId, f.attempt);
  }

  private cancelLive(): void {
    const now = this.tick.read();
    for (const op of this.ops.values()) {
      if (this.api.state(op.handle) === State.DONE) continue;
      this.api.cancel(op.handle, now);
      op.detail = "cancelled: the device stopped";
      op.flight?.req.destroy();
      op.flight = undefined;
    }
    this.releaseEnded();
  }

  private releaseEnded(): void {
    for (const op of this.ops.values()) {
      if (this.api.state(op.handle) !== State.DONE) continue;
      const ended: EndedOperation = {
        operationId: op.operationId,
        endReason: this.api.endReason(op.handle),
        attempts: this.api.attempt(op.handle),
        lastOutcome: this.api.lastOutcome(op.handle),
        detail: op.detail,
        tookMs: performance.now() - op.begunMs,
      };
      this.recent.unshift(ended);
      this.events.add(
        this.tick.read(),
        "end",
        op.operationId,
        ended.attempts,
        "NONE",
        endReasonName(ended.endReason),
      );
      if (this.recent.length > RECENT) this.recent.pop();
      this.onEnd?.(ended);
      this.api.release(op.handle);
      this.ops.delete(op.handle);
    }
  }

  /**
   * Swaps in another build of the module (an upload whose signature the caller checked),
   * started afresh as after a reboot. Only while no operation is held, so that no late
   * answer can meet a handle of the new instance: false, and nothing changed, while one is.
   */
  replaceModule(bytes: Buffer): boolean {
    if (this.ops.size > 0) return false;
    const api = instantiate(new WebAssembly.Module(new Uint8Array(bytes)));
    api.init(...seedHalves(this.seed));
    configureUpload(api, this.policy, this.budget);
    this.api = api;
    this.moduleBytes = bytes;
    return true;
  }

  /** True when the operation has an overall deadline (HAS_DEADLINE). */
  hasDeadline(handle: number): boolean {
    return (this.api.opFlags(handle) & OpFlag.HAS_DEADLINE) !== 0;
  }
}
