// Reads a url-encoded form body with a size limit, as a device with a small buffer must:
// past the limit the request is refused (413) and nothing of it is kept. No body at all is
// an empty form; a body of another type is refused (415), naming the type wanted.
import type { IncomingMessage } from "node:http";
import { PAGE } from "../generated/app-config.js";

/** Bytes a form post may carry (boards/app/config.json); the setup form needs a few hundred. */
export const BODY_LIMIT = PAGE.formBytes;

/** A refused body is read and dropped up to this size, so the client gets to see the 413. */
const DRAIN_LIMIT = 1024 * 1024;

export type FormBody =
  | { ok: true; form: URLSearchParams; notUtf8: Set<string> }
  | { ok: false; status: 413 | 415; message: string };

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses application/x-www-form-urlencoded bytes. Unlike URLSearchParams alone, a value
 * whose bytes are not UTF-8 is named in notUtf8 (URLSearchParams would turn them into
 * U+FFFD silently, and the value would then be stored and measured as something else).
 */
export function parseForm(body: Buffer): { form: URLSearchParams; notUtf8: Set<string> } {
  const form = new URLSearchParams();
  const notUtf8 = new Set<string>();
  for (const pair of body.toString("latin1").split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const [rawName, rawValue] = eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const bytes = (text: string) =>
      Buffer.from(
        text
          .replace(/\+/g, " ")
          .replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
        "latin1",
      );
    const name = new URLSearchParams(`${rawName}=`).keys().next().value ?? "";
    let value: string;
    try {
      value = strictUtf8.decode(bytes(rawValue));
    } catch {
      notUtf8.add(name);
      value = "";
    }
    form.append(name, value);
  }
  return { form, notUtf8 };
}

/** The request's media type, lower case and without parameters; "" when it names none. */
function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
}

/** Drops a body of the wrong type unread and refuses it with 415 and `message`. */
function wrongType(req: IncomingMessage, message: string) {
  req.resume();
  return { ok: false, status: 415, message } as const;
}

/**
 * Collects the body; undefined when it passes `limit` bytes, told as soon as it passes
 * `dropAfter` (the rest is not waited for) or else at its end (the rest is read and dropped).
 */
function collect(req: IncomingMessage, limit: number, dropAfter: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > dropAfter) resolve(undefined);
    });
    req.on("end", () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.on("error", () => resolve(undefined));
  });
}

export async function readForm(req: IncomingMessage): Promise<FormBody> {
  const type = mediaType(req);
  // A control with nothing to say (POST /power/reboot) may send no body and so no type.
  const noBody =
    req.headers["content-length"] === "0" ||
    (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined);
  if (type === "" && noBody) return { ok: true, form: new URLSearchParams(), notUtf8: new Set() };
  if (type !== "application/x-www-form-urlencoded") {
    return wrongType(
      req,
      `Send the form as application/x-www-form-urlencoded (this was ${type ? `"${type}"` : "untyped"}), or send no body; nothing was stored.`,
    );
  }
  const body = await collect(req, BODY_LIMIT, DRAIN_LIMIT);
  if (body === undefined) {
    return {
      ok: false,
      status: 413,
      message: `The form was larger than ${BODY_LIMIT} bytes; nothing was stored.`,
    };
  }
  return { ok: true, ...parseForm(body) };
}

export type BytesBody = { ok: true; bytes: Buffer } | { ok: false; status: 413 | 415; message: string };

/** Reads an application/octet-stream body of at most `limit` bytes (a module upload). */
export async function readBytes(req: IncomingMessage, limit: number): Promise<BytesBody> {
  if (mediaType(req) !== "application/octet-stream") {
    return wrongType(req, "Send the module as application/octet-stream.");
  }
  const bytes = await collect(req, limit, limit);
  if (bytes === undefined) return { ok: false, status: 413, message: `A module is at most ${limit} bytes.` };
  return { ok: true, bytes };
}
