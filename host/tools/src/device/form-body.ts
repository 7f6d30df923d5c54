// Reads a url-encoded form body with a size limit, as a device with a small buffer must:
// past the limit the request is refused (413) and nothing of it is kept. No body at all is
// an empty form; a body of another type is refused (415), naming the type wanted.
import type { IncomingMessage } from "node:http";

/** Bytes a form post may carry; the setup form needs a few hundred. */
export const BODY_LIMIT = 4096;

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

export function readForm(req: IncomingMessage): Promise<FormBody> {
  const tooLarge: FormBody = {
    ok: false,
    status: 413,
    message: `The form was larger than ${BODY_LIMIT} bytes; nothing was stored.`,
  };
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  // A control with nothing to say (POST /power/reboot) may send no body and so no type.
  const noBody =
    req.headers["content-length"] === "0" ||
    (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined);
  if (type === "" && noBody)
    return Promise.resolve({ ok: true, form: new URLSearchParams(), notUtf8: new Set() });
  if (type !== "application/x-www-form-urlencoded") {
    req.resume();
    return Promise.resolve({
      ok: false,
      status: 415,
      message: `Send the form as application/x-www-form-urlencoded (this was ${type ? `"${type}"` : "untyped"}), or send no body; nothing was stored.`,
    });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
      else if (size > DRAIN_LIMIT) resolve(tooLarge);
    });
    req.on("end", () =>
      resolve(size > BODY_LIMIT ? tooLarge : { ok: true, ...parseForm(Buffer.concat(chunks)) }),
    );
    req.on("error", () => resolve(tooLarge));
  });
}

export type BytesBody = { ok: true; bytes: Buffer } | { ok: false; status: 413 | 415; message: string };

/** Reads an application/octet-stream body of at most `limit` bytes (a module upload). */
export function readBytes(req: IncomingMessage, limit: number): Promise<BytesBody> {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/octet-stream") {
    req.resume();
    return Promise.resolve({
      ok: false,
      status: 415,
      message: "Send the module as application/octet-stream.",
    });
  }
  const tooLarge: BytesBody = { ok: false, status: 413, message: `A module is at most ${limit} bytes.` };
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else resolve(tooLarge);
    });
    req.on("end", () => resolve(size > limit ? tooLarge : { ok: true, bytes: Buffer.concat(chunks) }));
    req.on("error", () => resolve(tooLarge));
  });
}
