// Who may drive the test upstream's /control/ routes: a request whose Host names the
// address it listens on (or a loopback name for a loopback address), so that a page
// elsewhere cannot reach them by DNS rebinding, and no browser's cross-site request (an
// Origin of another site, or Sec-Fetch-Site cross-site): a text/plain POST needs no
// preflight, so the check is the server's to make.
import type { IncomingMessage } from "node:http";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function controlAllowed(req: IncomingMessage, address: string, port: number): boolean {
  const host = (req.headers.host ?? "").toLowerCase();
  const own = address.includes(":") ? `[${address}]` : address;
  const names = new Set([own, ...(own.startsWith("127.") || own === "[::1]" ? LOOPBACK : [])]);
  if (![...names].some((n) => host === `${n}:${port}`)) return false;
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return false;
  const origin = req.headers.origin;
  return origin === undefined || origin === `http://${host}`;
}
