// The device's setup page server: the page's files (boards/page/, the same bytes the
// firmware embeds) and the routes of boards/page/routes.json, the contract the sketch's
// handler table is generated from. Every request first passes the Host check (DNS
// rebinding); every post comes from the page itself (Origin/Referer) and carries the
// device password (X-Device-Password), set on first setup and stored hashed, and checked
// under a brute-force limit per client address (app/password.ts, GuessLimit). The handlers
// (handlers.ts) run in the event loop between main-loop passes.
import { StatusMemo } from "./status-delta.js";
import { PAGE } from "../generated/app-config.js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { KeyObject } from "node:crypto";
import type { Socket } from "node:net";
import { readBytes, readForm } from "./form-body.js";
import { GuessLimit } from "../app/password.js";
import type { Device } from "../device.js";
import { loadAssets, type LoadedAsset } from "./assets.js";
import { allowedHosts, guardRequest, sameOrigin } from "./request-guard.js";
import { routeTable, type Route } from "./routes.js";
import { refuse, refuseText, send, text, type Answer } from "./answers.js";
import { HANDLERS, type Handler, type Input, type SetupContext } from "./handlers.js";

// The limits are boards/app/config.json's (the page group).
/** Connections at once (connection-guard.ts): a device has a handful of sockets; more are closed at accept. */
export const MAX_CONNECTIONS = PAGE.maxConnections;
/** Requests a connection may have waiting for their answers (pipelined, unread): past it, the connection is closed. */
export const MAX_PIPELINED = PAGE.maxPipelined;
/** Answer bytes a connection may leave unread before it is closed. */
export const MAX_UNSENT_BYTES = PAGE.maxUnsentBytes;
/** A signed module is a few KiB; a larger upload is refused unread. */
const MODULE_LIMIT = PAGE.moduleBytes;

export interface SetupServerOptions {
  device: Device;
  /** The build key an uploaded module must be signed with (none: every upload is refused). */
  buildKey?: KeyObject;
  /**
   * The address the server is bound to: only requests whose Host names it (or a loopback
   * name, for a loopback address) are answered, so a page elsewhere cannot reach it by
   * DNS rebinding. 0.0.0.0 and :: (all interfaces) lift the check.
   */
  bindHost: string;
  /** The brute-force limit's clock (default performance.now). */
  guessLimit?: GuessLimit;
}

type Table = Map<string, Route & { run: Handler }>;

/** The route's guard: undefined when the request may go on, else the refusal. */
async function admit(route: Route, req: IncomingMessage, ctx: SetupContext, limit: GuessLimit) {
  if (route.guard === "open" || (route.guard === "first-setup" && !ctx.password.isSet)) return undefined;
  if (!ctx.password.isSet) return refuse(403, "setPasswordFirst");
  const given = req.headers["x-device-password"];
  // No password given is no guess: nothing to hash, nothing to count.
  if (typeof given !== "string" || given === "") return refuse(401, "wrongPassword");
  const address = req.socket.remoteAddress ?? "";
  const right = await limit.run(address, () => ctx.password.check(given));
  if (right === undefined) {
    return refuse(429, "tooManyGuesses", {
      "retry-after": String(Math.ceil(limit.waitMs(address) / 1000)),
    });
  }
  return right ? undefined : refuse(401, "wrongPassword");
}

/** The body as the route reads it, or the refusal of a bad one. */
async function readInput(route: Route, req: IncomingMessage, firstSetup: boolean): Promise<Input | Answer> {
  const input: Input = {
    req,
    form: new URLSearchParams(),
    notUtf8: new Set(),
    bytes: Buffer.alloc(0),
    firstSetup,
  };
  if (route.body === "raw") {
    const body = await readBytes(req, MODULE_LIMIT);
    return body.ok ? { ...input, bytes: body.bytes } : refuseText(body.status, body.message);
  }
  if (route.body === "form") {
    const body = await readForm(req);
    return body.ok
      ? { ...input, form: body.form, notUtf8: body.notUtf8 }
      : refuseText(body.status, body.message);
  }
  req.resume();
  return input;
}

interface Served {
  table: Table;
  ctx: SetupContext;
  limit: GuessLimit;
  assets: Map<string, LoadedAsset>;
}

async function runRoute(route: Route & { run: Handler }, req: IncomingMessage, host: string, s: Served) {
  const { ctx, limit } = s;
  const firstSetup = !ctx.password.isSet;
  if (req.method === "POST" && !sameOrigin(req, host)) {
    return refuse(403, "crossSite");
  }
  const refused = await admit(route, req, ctx, limit);
  if (refused !== undefined) return refused;
  const input = await readInput(route, req, firstSetup);
  return "req" in input ? route.run(ctx, input) : input;
}

/** A path no route has: one of the page's files, or not found. */
function serveFile(req: IncomingMessage, path: string, assets: Map<string, LoadedAsset>): Answer {
  if (req.method === "POST") return refuse(404, "noSuchControl");
  if (req.method !== "GET" && req.method !== "HEAD")
    return text(405, "GET or POST", { allow: "GET, HEAD, POST" });
  const asset = assets.get(path);
  if (asset === undefined) return text(404, "not found");
  // The firmware always sends the gzip bytes; here only to clients that take them.
  const gzip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
  const headers: Record<string, string> = gzip ? { "content-encoding": "gzip" } : {};
  return { status: 200, type: asset.type, bytes: gzip ? asset.gzip : asset.raw, headers };
}

function answer(req: IncomingMessage, path: string, host: string, s: Served): Answer | Promise<Answer> {
  const route = s.table.get(path);
  if (route === undefined) return serveFile(req, path, s.assets);
  const method = req.method === "HEAD" ? "GET" : req.method;
  if (method !== route.method) return text(405, `${route.method} only`, { allow: route.method });
  return runRoute(route, req, host, s);
}

export function createSetupServer(options: SetupServerOptions): Server {
  const served: Served = {
    ctx: {
      device: options.device,
      password: options.device.password,
      statusMemo: new StatusMemo(),
      buildKey: options.buildKey,
    },
    limit: options.guessLimit ?? new GuessLimit(),
    table: routeTable(HANDLERS),
    assets: loadAssets(),
  };
  const allowed = allowedHosts(options.bindHost);
  const pending = new WeakMap<Socket, number>();

  const server = createServer(
    { connectionsCheckingInterval: 1000 },
    (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      const waiting = (pending.get(socket) ?? 0) + 1;
      pending.set(socket, waiting);
      res.once("close", () => pending.set(socket, (pending.get(socket) ?? 1) - 1));
      // A client that sends request after request and reads no answer would make this
      // process hold every answer: its connection goes instead.
      if (waiting > MAX_PIPELINED || socket.writableLength > MAX_UNSENT_BYTES) return socket.destroy();
      const guard = guardRequest(req, allowed);
      if (!guard.ok) {
        req.resume();
        return send(res, text(guard.status, guard.message));
      }
      Promise.resolve(answer(req, guard.path, guard.host, served))
        .then((a) => {
          if (a.status >= 400) req.resume();
          send(res, a);
        })
        .catch((err: Error) => {
          if (!res.headersSent) send(res, refuseText(500, err.message));
        });
    },
  );
  // A connection that never finishes its headers holds a slot: not for long, checked every
  // second rather than on Node's 30 s sweep. (Above the 5 s keep-alive timeout: at 5 s it
  // closed browsers' kept-alive connections under their next poll.)
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  return server;
}
