// The device's setup page server: the page, its live status, the settings form and the
// fault controls. Its handlers run in the event loop between main-loop passes and only
// touch the device through requests the next pass carries out (stall, upload) or
// through read-only queries (status).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import { isScenarioName } from "../upstream/scenarios.js";
import type { Upstream } from "../upstream/server.js";
import { readForm } from "./form-body.js";
import { MAX_SLEEP_S, MAX_STALL_MS, type Device } from "./loop.js";
import { renderPage, type PageView } from "./page.js";
import { checkSettings } from "./settings.js";
import { deviceStatus } from "./status.js";

const CLIENT_JS = readFileSync(new URL("./page-client.js", import.meta.url));

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

const DONE = {
  saved: "Settings saved.",
  scenario: "Upstream scenario switched.",
  stall: "Stall asked for: the next pass blocks the main loop.",
  upload: "Upload begun.",
  reset: "Loop maxima reset.",
  reboot: "Reboot asked for: the next pass restores a fresh module from the stored image.",
  sleep: "Deep sleep asked for: nothing runs until the device wakes and restores its image.",
};

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface SetupServerOptions {
  device: Device;
  /** The loopback upstream, when the page may switch its scenario. */
  upstream?: Upstream;
  /**
   * Only answer requests whose Host is a loopback name (default true): a page bound to
   * 127.0.0.1 must not be reachable through DNS rebinding from a web page.
   */
  loopbackOnly?: boolean;
}

export function createSetupServer(options: SetupServerOptions): Server {
  const { device, upstream } = options;
  const loopbackOnly = options.loopbackOnly ?? true;

  function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra = {}): void {
    // A refused request's body may still be arriving: close rather than read the rest.
    const close = status >= 400 ? { connection: "close" } : {};
    res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, ...close, ...extra }).end(body);
  }

  function page(res: ServerResponse, status: number, view: Omit<PageView, "stored" | "scenario"> = {}): void {
    const html = renderPage({ ...view, stored: device.settings, scenario: upstream?.scenario() });
    send(res, status, "text/html; charset=utf-8", html);
  }

  // After a post that worked, back to the page with a notice named by a fixed code (the
  // page never shows text taken from its own URL).
  function back(res: ServerResponse, done: keyof typeof DONE): void {
    res.writeHead(303, { ...SECURITY_HEADERS, location: `/?done=${done}` }).end();
  }

  async function post(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const body = await readForm(req);
    if (!body.ok) return page(res, body.status, { notice: { kind: "error", text: body.message } });
    const form = body.form;
    switch (path) {
      case "/settings": {
        const checked = checkSettings(form);
        if (!checked.ok) {
          return page(res, 400, {
            errors: checked.errors,
            typed: { ssid: form.get("ssid") ?? "", upstreamUrl: form.get("upstreamUrl") ?? "" },
            notice: { kind: "error", text: "Not saved: fix the fields marked below. Nothing was stored." },
          });
        }
        device.settings = checked.settings;
        return back(res, "saved");
      }
      case "/fault/scenario": {
        const name = form.get("scenario") ?? "";
        if (upstream === undefined || !isScenarioName(name)) {
          return page(res, 400, { notice: { kind: "error", text: `No such upstream scenario: ${name}` } });
        }
        upstream.setScenario(name);
        return back(res, "scenario");
      }
      case "/fault/stall": {
        const ms = Number(form.get("ms"));
        if (!Number.isInteger(ms) || ms < 1 || ms > MAX_STALL_MS) {
          return page(res, 400, { notice: { kind: "error", text: `A stall is 1 to ${MAX_STALL_MS} ms.` } });
        }
        device.requestStall(ms);
        return back(res, "stall");
      }
      case "/upload":
        device.requestUpload();
        return back(res, "upload");
      case "/loop/reset":
        device.loopStats.reset();
        return back(res, "reset");
      case "/power/reboot":
        device.requestReboot();
        return back(res, "reboot");
      case "/power/sleep": {
        const s = Number(form.get("s"));
        if (!Number.isInteger(s) || s < 1 || s > MAX_SLEEP_S) {
          return page(res, 400, {
            notice: { kind: "error", text: `A deep sleep is 1 to ${MAX_SLEEP_S} s.` },
          });
        }
        device.requestDeepSleep(s * 1000);
        return back(res, "sleep");
      }
    }
    send(res, 404, "text/plain; charset=utf-8", "not found\n");
  }

  return createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://device.invalid");
    const host = (req.headers.host ?? "").replace(/:\d+$/, "");
    if (loopbackOnly && !LOOPBACK_NAMES.has(host)) {
      req.resume();
      return send(
        res,
        421,
        "text/plain; charset=utf-8",
        "this page answers to 127.0.0.1 or localhost only\n",
      );
    }
    if (req.method === "POST") {
      // A form on another site may post here too (its Host would still be 127.0.0.1):
      // only the page's own forms change anything.
      const origin = req.headers.origin;
      if (
        req.headers["sec-fetch-site"] === "cross-site" ||
        (origin && origin !== `http://${req.headers.host}`)
      ) {
        req.resume();
        return send(res, 403, "text/plain; charset=utf-8", "posts come from this page only\n");
      }
      post(req, res, url.pathname).catch((err: Error) => {
        if (!res.headersSent) send(res, 500, "text/plain; charset=utf-8", `${err.message}\n`);
      });
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      req.resume();
      return send(res, 405, "text/plain; charset=utf-8", "GET or POST\n", { allow: "GET, HEAD, POST" });
    }
    switch (url.pathname) {
      case "/": {
        const done = url.searchParams.get("done") ?? "";
        return page(
          res,
          200,
          Object.hasOwn(DONE, done) ? { notice: { kind: "ok", text: DONE[done as keyof typeof DONE] } } : {},
        );
      }
      case "/page.js":
        return send(res, 200, "text/javascript; charset=utf-8", CLIENT_JS);
      case "/status.json":
        return send(res, 200, "application/json", JSON.stringify(deviceStatus(device, upstream)));
    }
    send(res, 404, "text/plain; charset=utf-8", "not found\n");
  });
}
