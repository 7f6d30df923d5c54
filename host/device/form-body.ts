// Reads a url-encoded form body with a size limit, as a device with a small buffer must:
// past the limit the request is refused (413) and nothing of it is kept.
import type { IncomingMessage } from "node:http";

/** Bytes a form post may carry; the setup form needs a few hundred. */
export const BODY_LIMIT = 4096;

/** A refused body is read and dropped up to this size, so the client gets to see the 413. */
const DRAIN_LIMIT = 1024 * 1024;

export type FormBody =
  { ok: true; form: URLSearchParams } | { ok: false; status: 413 | 415; message: string };

export function readForm(req: IncomingMessage): Promise<FormBody> {
  const tooLarge: FormBody = {
    ok: false,
    status: 413,
    message: `The form was larger than ${BODY_LIMIT} bytes; nothing was stored.`,
  };
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    req.resume();
    return Promise.resolve({
      ok: false,
      status: 415,
      message: "Send the form url-encoded; nothing was stored.",
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
      resolve(
        size > BODY_LIMIT
          ? tooLarge
          : { ok: true, form: new URLSearchParams(Buffer.concat(chunks).toString("utf8")) },
      ),
    );
    req.on("error", () => resolve(tooLarge));
  });
}
