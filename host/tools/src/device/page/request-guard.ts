// What every request to the setup page passes before anything of it is parsed: the Host
// (DNS rebinding), the request target, and for posts the Origin/Referer (cross-site posts).
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

/** Names a Host may carry to reach a server bound to `bindHost`; undefined: any (an all-interfaces bind). */
export function allowedHosts(bindHost: string): Set<string> | undefined {
  if (bindHost === "0.0.0.0" || bindHost === "::") return undefined;
  const names = new Set([isIP(bindHost) === 6 ? `[${bindHost}]` : bindHost.toLowerCase()]);
  const loopback =
    bindHost === "localhost" || bindHost === "::1" || (isIP(bindHost) === 4 && bindHost.startsWith("127."));
  if (loopback) for (const n of ["localhost", "127.0.0.1", "[::1]"]) names.add(n);
  return names;
}

const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/;

export type Guarded =
  { ok: true; path: string; host: string } | { ok: false; status: 400 | 421; message: string };

/**
 * Checks the Host first (exactly one, well formed, and one this server answers to), then
 * the request target: an origin-form path, or an absolute URL naming an allowed host.
 */
export function guardRequest(req: IncomingMessage, allowed: Set<string> | undefined): Guarded {
  const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i].toLowerCase() === "host");
  if (hosts.length !== 1) return { ok: false, status: 400, message: "one Host header, please" };
  const host = (req.headers.host ?? "").toLowerCase();
  const m = HOST.exec(host);
  if (!m) return { ok: false, status: 400, message: "malformed Host header" };
  if (allowed && !allowed.has(m[1])) {
    return { ok: false, status: 421, message: `this page answers to ${[...allowed].join(" or ")} only` };
  }
  const target = req.url ?? "";
  let url: URL;
  try {
    url = new URL(target, `http://${host}`);
  } catch {
    return { ok: false, status: 400, message: "malformed request target" };
  }
  if (!target.startsWith("/")) {
    // An absolute-form target names its own host: it passes the same check.
    if (url.protocol !== "http:" || (allowed && !allowed.has(url.hostname))) {
      return { ok: false, status: 421, message: "the request target names another host" };
    }
  }
  return { ok: true, path: url.pathname, host };
}

/**
 * A post may change the device only when a browser says it comes from this page: no
 * cross-site or same-site Sec-Fetch-Site, and an Origin (or, without one, a Referer) of
 * this very origin. A client that sends neither is no browser (curl); the device
 * password still stands in its way.
 */
export function sameOrigin(req: IncomingMessage, host: string): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return false;
  const own = `http://${host}`;
  const origin = req.headers.origin;
  if (origin !== undefined) return origin === own;
  const referer = req.headers.referer;
  if (referer === undefined) return true;
  try {
    return new URL(referer).origin === own;
  } catch {
    return false;
  }
}
