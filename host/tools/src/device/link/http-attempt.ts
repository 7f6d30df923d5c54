// One attempt of an upload: a real HTTP request whose answer is turned into an outcome
// the module understands. The status goes through classifyHttp, generated from the table in
// assembly/constants.json as the firmware's is, so the simulated device and the firmware
// classify alike; transport errors are the host's to classify (docs/ABI.md, classifyHttp):
// TRANSIENT if the request never left, AMBIGUOUS if it may have been received.
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Limit, Outcome, classifyHttp } from "tickretry";

export interface AttemptResult {
  outcome: number;
  /** Retry-After in ms (0: none). */
  retryAfter: number;
  /** What happened, for people: "HTTP 503, Retry-After 2 s", "ECONNRESET after sending". */
  detail: string;
}

export interface AttemptRequest {
  url: string;
  operationId: number;
  attempt: number;
  body: string;
  /** Keeps connections open between attempts (the device's one HTTP client). */
  agents?: Agents;
  /** The device's RTC, ms since the epoch: an HTTP-date Retry-After counts from it (default Date.now). */
  wallMs?: () => number;
}

export interface Agents {
  http: HttpAgent;
  https: HttpsAgent;
}

/**
 * Answer body bytes an attempt reads: the upstream's verdict is a short JSON. A hostile or
 * broken upstream's endless body is cut off there (TRANSIENT), rather than read at full
 * speed for as long as the attempt lives (77% CPU and 16 GB in 40 s, issue 34).
 */
export const MAX_ANSWER_BYTES = 4096;
/** How long an answer's body may take after its headers came (a trickle): then TIMEOUT. */
export const MAX_ANSWER_MS = 5000;

/** Keep-alive agents: a connection per attempt would cost a TCP handshake and its garbage each time. */
export function keepAliveAgents(): Agents {
  return { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
}

/**
 * Retry-After as ms: delta-seconds or an HTTP-date (RFC 9110 10.2.3), capped at
 * MAX_SPAN; undefined when absent or malformed (then it is as if there were none).
 */
export function retryAfterMs(header: string | undefined, nowMs = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    // HTTP-dates start with the day name; Date.parse alone would take "-1" as a year.
    const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : NaN;
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, Limit.MAX_SPAN);
}

/** Reads an answer to its end, bounded in bytes and in time (`cutOff` ends the request
 * that went over), and settles with the outcome its status and Retry-After give. */
function readAnswer(
  res: IncomingMessage,
  wallMs: number,
  settle: (r: AttemptResult) => void,
  cutOff: () => void,
) {
  const ra = retryAfterMs(res.headers["retry-after"], wallMs);
  const status = res.statusCode ?? 0;
  const over = (r: AttemptResult) => {
    settle(r);
    cutOff();
  };
  let bytes = 0;
  res.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_ANSWER_BYTES) {
      over({
        outcome: Outcome.TRANSIENT,
        retryAfter: 0,
        detail: `HTTP ${status}, answer over ${MAX_ANSWER_BYTES} bytes`,
      });
    }
  });
  const slow = setTimeout(
    () =>
      over({
        outcome: Outcome.TIMEOUT,
        retryAfter: 0,
        detail: `HTTP ${status}, answer not over within ${MAX_ANSWER_MS} ms`,
      }),
    MAX_ANSWER_MS,
  );
  res.on("close", () => clearTimeout(slow));
  res.on("end", () => {
    const outcome = classifyHttp(status, ra === undefined ? 0 : 1);
    const detail = `HTTP ${status}` + (ra === undefined ? "" : `, Retry-After ${ra} ms`);
    settle(
      outcome < 0
        ? { outcome: Outcome.PERMANENT, retryAfter: 0, detail: `${detail} (not an HTTP status)` }
        : { outcome, retryAfter: ra ?? 0, detail },
    );
  });
  res.on("error", () => settle({ outcome: Outcome.AMBIGUOUS, retryAfter: 0, detail: "answer cut off" }));
}

/** Starts the request; `done` runs once with the result unless the attempt is aborted first. */
export function startAttempt(a: AttemptRequest, done: (r: AttemptResult) => void): ClientRequest {
  const url = new URL(a.url);
  const https = url.protocol === "https:";
  const request = https ? httpsRequest : httpRequest;
  let settled = false;
  let sent = false;
  const settle = (r: AttemptResult) => {
    if (!settled) {
      settled = true;
      done(r);
    }
  };
  const req = request(url, {
    method: "POST",
    agent: a.agents ? (https ? a.agents.https : a.agents.http) : false,
    headers: {
      "content-type": "application/json",
      "idempotency-key": String(a.operationId),
      "x-attempt": String(a.attempt),
    },
  });
  req.on("finish", () => (sent = true));
  req.on("response", (res) => readAnswer(res, (a.wallMs ?? Date.now)(), settle, () => req.destroy()));
  req.on("error", (err: NodeJS.ErrnoException) => {
    const code = err.code ?? err.message;
    settle(
      sent
        ? { outcome: Outcome.AMBIGUOUS, retryAfter: 0, detail: `${code} after sending` }
        : { outcome: Outcome.TRANSIENT, retryAfter: 0, detail: `${code} before sending` },
    );
  });
  req.end(a.body);
  return req;
}
