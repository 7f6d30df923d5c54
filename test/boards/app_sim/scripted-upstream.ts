// The simulator's upstream in the application differential: host_hal.c's scripted fates
// over the device's UploadLink seam, so that both sides of test/app-scenarios/ meet the
// same script. Each attempt takes the next scripted fate (then the fallback); its answer
// comes that many ms later on the device's clock. The "server" behind it stores each body
// once per Idempotency-Key and prints what it did, as host_hal.c's does.
import { Outcome, classifyHttp } from "../../../host/library/src/index.js";
import type { AttemptResult } from "../../../host/tools/src/device/link/http-attempt.js";
import type { UploadLink } from "../../../host/tools/src/device/app/readings.js";
import type { DeviceClock } from "../../../host/tools/src/device/clock.js";

export const FATES = ["ok", "503", "down", "hang"] as const;
export type Fate = (typeof FATES)[number];

/** host_hal.h's HOST_CLIENT_GIVES_UP_MS: the board's client gives up on a hung answer. */
export const CLIENT_GIVES_UP_MS = 7000;

interface Scripted {
  fate: Fate;
  ms: number;
}

export class ScriptedUpstream {
  private readonly fates: Scripted[] = [];
  private next = 0;
  private fallback: Scripted = { fate: "ok", ms: 0 };
  /** The server's store: Idempotency-Keys it has. */
  private readonly keys = new Set<string>();

  constructor(
    private readonly clock: DeviceClock,
    /** Prints one trace line after the tick. */
    private readonly say: (line: string) => void,
    /** The trace's number of a reading (its place among the readings taken). */
    private readonly seqOf: (readingId: number) => number,
    /** The board's key of an upload: the epoch it began in, and its operation id. */
    private readonly keyOf: (operationId: number) => string,
  ) {}

  script(fate: Fate, ms: number): void {
    this.fates.push({ fate, ms });
  }

  setFallback(fate: Fate, ms: number): void {
    this.fallback = { fate, ms };
  }

  readonly link: UploadLink = (a, done) => {
    const { fate, ms } = this.fates[this.next] ?? this.fallback;
    if (this.next < this.fates.length) this.next++;
    if (fate === "ok" || fate === "hang") this.store(this.keyOf(a.operationId), this.seqOf(a.reading.id));
    const result = resultOf(fate);
    const cancel = this.clock.after(fate === "hang" ? CLIENT_GIVES_UP_MS : ms, () => done(result));
    return { destroy: cancel };
  };

  private store(key: string, seq: number): void {
    const seen = this.keys.has(key);
    this.keys.add(key);
    this.say(`server ${seen ? "duplicate" : "stored"} key ${key} seq ${seq}`);
  }
}

/** What the board's client makes of each fate (host_hal.c's http_start, readings.c's collect). */
function resultOf(fate: Fate): AttemptResult {
  if (fate === "down") return { outcome: Outcome.TRANSIENT, retryAfter: 0, detail: "transport error -1" };
  if (fate === "hang") return { outcome: Outcome.AMBIGUOUS, retryAfter: 0, detail: "transport error -11" };
  const status = fate === "ok" ? 200 : 503;
  return { outcome: classifyHttp(status, 0), retryAfter: 0, detail: `HTTP ${status}` };
}
