// /status.json in the steady state: the page asks for the events since its last poll
// (?since=SEQ) and takes gzip, so that a poll stays within 2 KB on the wire however long
// the device has run; the body is the same status, events after SEQ only.
import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { QUICK } from "../../../helpers/device.js";

let sim: Simulation;
beforeAll(async () => {
  sim = await startSimulation({ port: 0, scenario: "flaky", policy: QUICK, uploadEveryMs: 200 });
});
afterAll(() => sim?.close());

/** One poll as the page makes it: the bytes on the wire and the status they carry. */
function poll(
  since: number,
): Promise<{ wire: number; encoding?: string; status: { events: { seq: number }[] } }> {
  const u = new URL(`/status.json?since=${since}`, sim.url);
  return new Promise((resolve, reject) => {
    const req = request(u, { headers: { "accept-encoding": "gzip, deflate" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers["content-encoding"];
        const text = (encoding === "gzip" ? gunzipSync(raw) : raw).toString("utf8");
        resolve({ wire: raw.length, encoding, status: JSON.parse(text) });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

test("a poll after the first carries only new events and stays within 2 KB", async () => {
  // Let the event ring fill: an upload every 200 ms, each with its attempts and end.
  await new Promise((r) => setTimeout(r, 6000));
  const first = await poll(0);
  expect(first.status.events.length).toBeGreaterThan(30);
  const last = Math.max(...first.status.events.map((e) => e.seq));
  await new Promise((r) => setTimeout(r, 500));
  const next = await poll(last);
  console.log(
    `status.json: first poll ${first.wire} B (${first.encoding}), steady-state poll ${next.wire} B`,
  );
  expect(next.status.events.every((e) => e.seq > last)).toBe(true);
  expect(next.wire).toBeLessThanOrEqual(2048);
  expect(next.wire).toBeLessThan(first.wire);
}, 20_000);
