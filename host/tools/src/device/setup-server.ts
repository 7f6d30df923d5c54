// The device's setup page server: the page's files (boards/page/, the same bytes the
// firmware embeds), its live status, the module the playground runs, and the posts that
// change the device. Every post comes from the page itself (Origin/Referer) and carries
// the device password (X-Device-Password), set on first setup and stored hashed; an
// uploaded module must carry the build key's signature. Handlers run in the event loop
// between main-loop passes and touch the device only through requests the next pass
// carries out (stall, upload) or through read-only queries (status).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { KeyObject } from "node:crypto";
import type { Socket } from "node:net";
import { ABI_VERSION, Result, errorName, instantiate } from "tickretry";
import { isScenarioName } from "../upstream/scenarios.js";
import type { Upstream } from "../upstream/server.js";
import { readBytes, readForm } from "./form-body.js";
import { MAX_SLEEP_S, MAX_STALL_MS, type Device } from "./loop.js";
import { loadAssets } from "./page-assets.js";
import { allowedHosts, guardRequest, sameOrigin } from "./request-guard.js";
import { DevicePassword, passwordProblem, verifySignedModule } from "./security.js";
import { checkSettings } from "./settings.js";
import { deviceStatus } from "./status.js";
import type { MqttSide } from "./mqtt-simulation.js";

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; " +
    "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

/** Connections at once (connection-guard.ts): a device has a handful of sockets; more are closed at accept. */
export const MAX_CONNECTIONS = 32;
/** Requests a connection may have waiting for their answers (pipelined, unread): past it, the connection is closed. */
export const MAX_PIPELINED = 4;
/** Answer bytes a connection may leave unread before it is closed. */
export const MAX_UNSENT_BYTES = 256 * 1024;
/** A signed module is a few KiB; a larger upload is refused unread. */
const MODULE_LIMIT = 64 * 1024;

export interface SetupServerOptions {
  device: Device;
  /** The loopback upstream, when the page may switch its scenario. */
  upstream?: Upstream;
  /** The MQTT side, when the device uploads over MQTT (its embedded broker the page may restart). */
  mqtt?: MqttSide;
  /**
   * The address the server is bound to: only requests whose Host names it (or a loopback
   * name, for a loopback address) are answered, so a page elsewhere cannot reach it by
   * DNS rebinding. 0.0.0.0 and :: (all interfaces) lift the check.
   */
  bindHost: string;
  password?: DevicePassword;
  /** The build key's public half: an uploaded module must carry its signature. */
  buildKey?: KeyObject;
}

type Answer = { status: number; body: Record<string, unknown> };
const ok = (message: string): Answer => ({ status: 200, body: { ok: true, message } });
const refuse = (status: number, error: string, fields?: Record<string, string>): Answer => ({
  status,
  body: { ok: false, error, ...(fields && { fields }) },
});

export function createSetupServer(options: SetupServerOptions): Server {
  const { device, upstream, buildKey } = options;
  const password = options.password ?? new DevicePassword();
  const allowed = allowedHosts(options.bindHost);
  const assets = loadAssets();
  const pending = new WeakMap<Socket, number>();

  function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra = {}): void {
    // A refused request's body may still be arriving: close rather than read the rest.
    const close = status >= 400 ? { connection: "close" } : {};
    res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, ...close, ...extra }).end(body);
  }

  const json = (res: ServerResponse, a: Answer) =>
    send(res, a.status, "application/json", JSON.stringify(a.body));

  async function post(req: IncomingMessage, path: string): Promise<Answer> {
    const given = req.headers["x-device-password"];
    if (path === "/password" && !password.isSet) {
      const form = await readForm(req);
      if (!form.ok) return refuse(form.status, form.message);
      const problem = passwordProblem(form.form.get("password") ?? "");
      if (problem) return refuse(400, problem, { password: problem });
      await password.set(form.form.get("password")!);
      return ok("Device password set.");
    }
    if (!password.isSet) return refuse(403, "Set a device password first; nothing was changed.");
    if (typeof given !== "string" || !(await password.check(given))) {
      return refuse(401, "Wrong or missing device password; nothing was changed.");
    }
    if (path === "/module") return receiveModule(req);
    const body = await readForm(req);
    if (!body.ok) return refuse(body.status, body.message);
    const form = body.form;
    switch (path) {
      case "/password": {
        const problem = passwordProblem(form.get("password") ?? "");
        if (problem) return refuse(400, problem, { password: problem });
        await password.set(form.get("password")!);
        return ok("Device password changed.");
      }
      case "/settings": {
        const checked = checkSettings(form, device.settings, body.notUtf8);
        if (!checked.ok) {
          return refuse(400, "Not saved: fix the fields marked. Nothing was stored.", checked.errors);
        }
        device.settings = checked.settings;
        return ok("Settings saved.");
      }
      case "/fault/scenario": {
        const name = form.get("scenario") ?? "";
        if (upstream === undefined || !isScenarioName(name)) return refuse(400, "No such upstream scenario.");
        upstream.setScenario(name);
        return ok("Upstream scenario switched.");
      }
      case "/fault/broker-restart": {
        const broker = options.mqtt?.broker;
        if (broker === undefined) return refuse(400, "No broker started here to restart.");
        await broker.restart();
        return ok("Broker restarted: every client dropped; the device's session reconnects.");
      }
      case "/fault/stall": {
        const text = form.get("ms") ?? "";
        const ms = Number(text);
        if (!/^[0-9]{1,6}$/.test(text) || ms < 1 || ms > MAX_STALL_MS) {
          return refuse(400, `A stall is 1 to ${MAX_STALL_MS} ms, in plain decimal digits.`);
        }
        device.requestStall(ms);
        return ok("Stall asked for: the next pass blocks the main loop.");
      }
      case "/upload":
        device.requestUpload();
        return ok("Upload begun.");
      case "/loop/reset":
        device.loopStats.reset();
        return ok("Loop maxima reset.");
      case "/power/reboot":
        device.requestReboot();
        return ok("Reboot asked for: the next pass restores a fresh module from the stored image.");
      case "/power/sleep": {
        const text = form.get("s") ?? "";
        const s = Number(text);
        if (!/^[0-9]{1,4}$/.test(text) || s < 1 || s > MAX_SLEEP_S) {
          return refuse(400, `A deep sleep is 1 to ${MAX_SLEEP_S} s, in plain decimal digits.`);
        }
        device.requestDeepSleep(s * 1000);
        return ok("Deep sleep asked for: nothing runs until the device wakes and restores its image.");
      }
    }
    return refuse(404, "No such control.");
  }

  async function receiveModule(req: IncomingMessage): Promise<Answer> {
    const body = await readBytes(req, MODULE_LIMIT);
    if (!body.ok) return refuse(body.status, body.message);
    const signed = verifySignedModule(body.bytes, buildKey);
    if (!signed.ok) return refuse(422, `Module refused: ${signed.reason}.`);
    let abiVersion: number;
    try {
      abiVersion = instantiate(new WebAssembly.Module(new Uint8Array(signed.module))).abiVersion();
    } catch (err) {
      return refuse(422, `Module refused: ${(err as Error).message}.`);
    }
    if (abiVersion !== ABI_VERSION) {
      return refuse(422, `Module refused: ABI version ${abiVersion}, this firmware has ${ABI_VERSION}.`);
    }
    const swapped = device.replaceModule(signed.module);
    if (swapped !== Result.OK)
      return refuse(422, `Module refused: its restore of the running state said ${errorName(swapped)}.`);
    return ok("Module replaced.");
  }

  const server = createServer((req, res) => {
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
      return send(res, guard.status, "text/plain; charset=utf-8", `${guard.message}\n`);
    }
    if (req.method === "POST") {
      if (!sameOrigin(req, guard.host)) {
        req.resume();
        return json(res, refuse(403, "Posts come from this page only; nothing was changed."));
      }
      post(req, guard.path)
        .then((a) => json(res, a))
        .catch((err: Error) => {
          if (!res.headersSent) json(res, refuse(500, err.message));
        });
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      req.resume();
      return send(res, 405, "text/plain; charset=utf-8", "GET or POST\n", { allow: "GET, HEAD, POST" });
    }
    if (guard.path === "/status.json") {
      const status = deviceStatus(device, {
        upstream,
        mqtt: options.mqtt,
        devicePasswordSet: password.isSet,
      });
      return send(res, 200, "application/json", JSON.stringify(status));
    }
    if (guard.path === "/tickretry.wasm") return send(res, 200, "application/wasm", device.moduleBytes);
    const asset = assets.get(guard.path);
    if (asset === undefined) return send(res, 404, "text/plain; charset=utf-8", "not found\n");
    // The firmware always sends the gzip bytes; here only to clients that take them.
    const gzip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
    send(res, 200, asset.type, gzip ? asset.gzip : asset.raw, gzip ? { "content-encoding": "gzip" } : {});
  });
  // A connection that never finishes its headers holds a slot: not for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  return server;
}
