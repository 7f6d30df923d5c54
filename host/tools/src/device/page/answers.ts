// What the setup page's server answers: a JSON verdict for the page (ok and a message, or
// an error and the fields it names), or bytes (the page's files, the module, the status),
// always with the security headers and a Content-Length. A known length, rather than a
// chunked body, lets the answer leave in one write: chunked, its last chunk waited for
// the client's delayed ACK (Nagle), 40 ms on every kept-alive status poll.
import type { ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { message } from "./routes.js";

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; " +
    "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

export type Answer =
  | { status: number; body: Record<string, unknown>; headers?: Record<string, string> }
  | { status: number; type: string; bytes: Buffer | string; headers?: Record<string, string> };

/** A success, in the contract's words (boards/page/routes.json). */
export const ok = (key: string): Answer => ({ status: 200, body: { ok: true, message: message(key) } });

/** A refusal in the contract's words. */
export const refuse = (status: number, key: string, headers?: Record<string, string>): Answer =>
  refuseText(status, message(key), undefined, headers);

/** A refusal whose text is composed (a contract message and a reason) or a checker's, with the fields it names. */
export const refuseText = (
  status: number,
  error: string,
  fields?: Record<string, string>,
  headers?: Record<string, string>,
): Answer => ({ status, body: { ok: false, error, ...(fields && { fields }) }, headers });

/** Plain text, for answers that are no verdict of the page (not found, wrong Host). */
export const text = (status: number, body: string, headers?: Record<string, string>): Answer => ({
  status,
  type: "text/plain; charset=utf-8",
  bytes: `${body}\n`,
  headers,
});

/** JSON of more than this many bytes goes gzip-compressed to a client that accepts it. */
const GZIP_FROM = 1024;

export function send(res: ServerResponse, a: Answer): void {
  const [type, body] = "body" in a ? ["application/json", JSON.stringify(a.body)] : [a.type, a.bytes];
  const plain = typeof body === "string" ? Buffer.from(body) : body;
  const gzip =
    "body" in a && plain.length > GZIP_FROM && /\bgzip\b/.test(String(res.req.headers["accept-encoding"]));
  const bytes = gzip ? gzipSync(plain) : plain;
  const encoding = gzip ? { "content-encoding": "gzip", vary: "accept-encoding" } : {};
  // A refused request's body may still be arriving: close rather than read the rest.
  const close = a.status >= 400 ? { connection: "close" } : {};
  res
    .writeHead(a.status, {
      ...SECURITY_HEADERS,
      "content-type": type,
      "content-length": String(bytes.length),
      ...encoding,
      ...close,
      ...a.headers,
    })
    .end(res.req.method === "HEAD" ? undefined : bytes);
}
