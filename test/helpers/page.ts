// Posting to the setup page as the page itself does: same origin, the device password in
// X-Device-Password, a url-encoded form or raw bytes.
import { request } from "node:http";
import type { Simulation } from "../../host/tools/src/device/simulation.js";

export const DEVICE_PASSWORD = "correct horse battery";

export function post(
  sim: Simulation,
  path: string,
  body: Record<string, string> | Buffer,
  headers: Record<string, string> = {},
): Promise<Response> {
  const bytes = Buffer.isBuffer(body);
  const all: Record<string, string> = {
    origin: new URL(sim.url).origin,
    "x-device-password": DEVICE_PASSWORD,
    ...(bytes && { "content-type": "application/octet-stream" }),
    ...headers,
  };
  return fetch(new URL(path, sim.url), {
    method: "POST",
    body: bytes ? new Uint8Array(body) : new URLSearchParams(body),
    // A header given as "" is left out (no Origin, no password).
    headers: Object.fromEntries(Object.entries(all).filter(([, v]) => v !== "")),
  });
}

/** Sets the device password on a fresh simulation, as its first setup does. */
export async function setUp(sim: Simulation): Promise<void> {
  const res = await post(sim, "/password", { password: DEVICE_PASSWORD });
  if (res.status !== 200) throw new Error(`first setup failed: ${res.status} ${await res.text()}`);
}

/** A raw HTTP/1.1 request with exactly the target and headers given; its status and body. */
export function raw(
  url: string,
  target: string,
  headers: [string, string][],
  method = "GET",
  body?: string,
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path: target, setHost: false }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    for (const [k, v] of headers) req.appendHeader(k, v);
    req.on("error", reject);
    req.end(body);
  });
}
