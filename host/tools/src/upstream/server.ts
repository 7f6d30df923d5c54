// The flaky upstream: a real HTTP server on loopback that takes sensor uploads
// (POST /upload with an Idempotency-Key) and meets each one with the current scenario's
// fault. Its dedup store keeps each key with the body stored under it, so a retry of an
// upload that already ran (a reset after the request was processed) is answered as a
// replay, not stored twice. With `control`, it also answers GET /control/stats,
// GET /control/stored and POST /control/scenario, for a test driving it from another
// process (the chaos runner, which kills the device but never the upstream).
import { controlAllowed } from "./control-guard.js";
import { DedupStore, KEY_LIMIT_BYTES } from "./dedup-store.js";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEFAULT_TIMING,
  SCENARIOS,
  isScenarioName,
  unknownScenario,
  type Action,
  type ScenarioName,
  type Timing,
} from "./scenarios.js";
import { Rng } from "../random.js";

/** One request as the upstream saw it (kept for the last LOG_SIZE requests). */
export interface Seen {
  key: string;
  attempt: string;
  scenario: ScenarioName;
  action: Action["kind"];
  status?: number;
  /** ms since the upstream started. */
  atMs: number;
}

export interface UpstreamStats {
  scenario: ScenarioName;
  requests: number;
  /** Uploads stored now (distinct Idempotency-Keys that ran, the newest that fit). */
  stored: number;
  /** Uploads the bounded store evicted, oldest first, to make room for newer ones. */
  evicted: number;
  /** Requests whose key had already run: answered as a replay, stored once. */
  replays: number;
  resets: number;
  /** Requests not answered yet, right now: held by a hang or a freeze, or still being served. */
  holding: number;
}

export interface Upstream {
  url: string;
  scenario(): ScenarioName;
  setScenario(name: ScenarioName): void;
  stats(): UpstreamStats;
  log(): readonly Seen[];
  /** Every upload stored: its Idempotency-Key and the body that ran under it, in order. */
  stored(): StoredUpload[];
  close(): Promise<void>;
}

export interface StoredUpload {
  key: string;
  body: string;
}

export interface UpstreamOptions {
  port?: number;
  host?: string;
  scenario?: ScenarioName;
  timing?: Partial<Timing>;
  /** Seeds the flaky scenario's draws, so a run can be repeated. */
  seed?: number;
  /** Answer the /control/ routes (default false). */
  control?: boolean;
  /** Bytes the dedup store may hold (default STORE_LIMIT_BYTES). */
  storeLimitBytes?: number;
}

const LOG_SIZE = 500;
const BODY_LIMIT = 16 * 1024;

/** Starts the upstream; port 0 (the default) takes a free port. */
export async function startUpstream(options: UpstreamOptions = {}): Promise<Upstream> {
  const u = new UpstreamServer(options);
  const server = createServer((req, res) => u.route(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      ({ address: u.address, port: u.port } = server.address() as AddressInfo);
      resolve();
    });
  });
  return {
    url: `http://${u.address}:${u.port}/upload`,
    scenario: () => u.scenario,
    setScenario: (name) => u.setScenario(name),
    stats: () => u.stats(),
    log: () => u.seen,
    stored: () => u.store.entries(),
    close() {
      for (const t of u.timers) clearTimeout(t);
      u.timers.clear();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The upstream's state and how it meets each request. */
class UpstreamServer {
  private readonly timing: Timing;
  private readonly rng: Rng;
  private readonly started = performance.now();
  scenario: ScenarioName;
  private scenarioSince = this.started;
  readonly store: DedupStore;
  readonly seen: Seen[] = [];
  /** The answers held back (a hang, a freeze, a delay). */
  readonly timers = new Set<NodeJS.Timeout>();
  private requests = 0;
  private replays = 0;
  private resets = 0;
  /** Where the server listens, once it does: the control guard compares with it. */
  address = "";
  port = 0;

  constructor(private readonly options: UpstreamOptions) {
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
    this.rng = new Rng(options.seed ?? 1);
    this.scenario = options.scenario ?? "healthy";
    this.store = new DedupStore(options.storeLimitBytes);
  }

  stats(): UpstreamStats {
    return {
      scenario: this.scenario,
      requests: this.requests,
      stored: this.store.size,
      evicted: this.store.evicted,
      replays: this.replays,
      resets: this.resets,
      holding: this.timers.size,
    };
  }

  setScenario(name: ScenarioName): void {
    this.scenario = name;
    this.scenarioSince = performance.now();
  }

  /** Every request: refused at once when it is not one the upstream takes, else read. */
  route(req: IncomingMessage, res: ServerResponse): void {
    const isControl = this.options.control === true && req.url?.startsWith("/control/");
    if (!isControl && (req.method !== "POST" || req.url !== "/upload")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("POST /upload only\n");
      return;
    }
    if (isControl && !controlAllowed(req, this.address, this.port)) {
      res
        .writeHead(403, { "content-type": "text/plain", connection: "close" })
        .end("control from this host only\n");
      req.resume();
      return;
    }
    const key = String(req.headers["idempotency-key"] ?? "");
    if (Buffer.byteLength(key) > KEY_LIMIT_BYTES) {
      res
        .writeHead(400, { "content-type": "text/plain", connection: "close" })
        .end(`Idempotency-Key over ${KEY_LIMIT_BYTES} bytes\n`);
      req.resume();
      return;
    }
    this.readBody(req, res, (body) =>
      isControl ? this.control(req, res, body) : this.handle(req, res, key, body),
    );
  }

  /** Reads the body, up to BODY_LIMIT bytes (past it: 413 and the connection closed). */
  private readBody(req: IncomingMessage, res: ServerResponse, then: (body: string) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
      else {
        res.writeHead(413, { connection: "close" }).end();
        req.destroy();
      }
    });
    req.on("end", () => {
      if (size > BODY_LIMIT) return;
      then(Buffer.concat(chunks).toString("utf8"));
    });
  }

  private answer(
    res: ServerResponse,
    key: string,
    upload: string,
    status: number,
    retryAfterS?: number,
  ): void {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (retryAfterS !== undefined) headers["retry-after"] = String(retryAfterS);
    const body: Record<string, unknown> = { status };
    if (status >= 200 && status < 300 && key !== "") {
      const ran = this.store.run(key, upload);
      body.key = key;
      body.replay = ran === "replay";
      if (body.replay) {
        this.replays++;
        headers["idempotent-replayed"] = "true";
      }
    }
    res.writeHead(status, headers).end(JSON.stringify(body));
  }

  private handle(req: IncomingMessage, res: ServerResponse, key: string, upload: string): void {
    this.requests++;
    const rand = () => this.rng.next();
    const action: Action = SCENARIOS[this.scenario].decide(
      performance.now() - this.scenarioSince,
      rand,
      this.timing,
    );
    const entry: Seen = {
      key,
      attempt: String(req.headers["x-attempt"] ?? ""),
      scenario: this.scenario,
      action: action.kind,
      atMs: performance.now() - this.started,
    };
    this.seen.push(entry);
    if (this.seen.length > LOG_SIZE) this.seen.shift();
    if (action.kind === "reset") {
      // The upload ran, then the connection died before the answer: the client's view.
      if (key !== "") this.store.run(key, upload);
      this.resets++;
      req.socket.resetAndDestroy();
      return;
    }
    entry.status = action.status;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.answer(res, key, upload, action.status, action.retryAfterS);
    }, action.delayMs);
    this.timers.add(timer);
    // A client that gives up (the device timed the attempt out) frees the held request.
    res.on("close", () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    });
  }

  private control(req: IncomingMessage, res: ServerResponse, body: string): void {
    const json = (status: number, value: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    };
    const route = `${req.method} ${req.url}`;
    if (route === "GET /control/stats") return json(200, this.stats());
    if (route === "GET /control/stored") return json(200, this.store.entries());
    if (route === "POST /control/scenario") {
      const name = body.trim();
      if (!isScenarioName(name)) return json(400, { error: unknownScenario(name) });
      this.setScenario(name);
      return json(200, this.stats());
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  }
}
