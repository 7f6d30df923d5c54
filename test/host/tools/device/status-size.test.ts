// /status.json in the steady state: the page asks for what changed since its last poll
// (?since=SEQ) and takes gzip, so that a poll stays within 2 KB on the wire however long
// the device has run: the tick, the events and ended operations after SEQ, and the groups
// that changed since (host/tools/src/device/page/status-delta.ts, the sketch's protocol too).
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
function poll(since: number): Promise<{
  wire: number;
  encoding?: string;
  status: { events: { seq: number }[]; recent: { seq: number }[]; settings?: unknown; device?: unknown };
}> {
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

const newest = (s: { events: { seq: number }[] }, before: number) =>
  Math.max(before, ...s.events.map((e) => e.seq));

test("a poll after the first carries only what changed and stays within 2 KB", async () => {
  // Let the event ring fill: an upload every 200 ms, each with its attempts and end.
  await new Promise((r) => setTimeout(r, 6000));
  const first = await poll(0);
  expect(first.status.events.length).toBeGreaterThan(30);
  expect(first.status.settings).toBeDefined();
  const seq1 = newest(first.status, 0);
  await new Promise((r) => setTimeout(r, 500));
  const second = await poll(seq1);
  const seq2 = newest(second.status, seq1);
  expect(seq2).toBeGreaterThan(seq1);
  await new Promise((r) => setTimeout(r, 500));
  const third = await poll(seq2);
  console.log(
    `status.json: first poll ${first.wire} B (${first.encoding}), steady-state polls ${second.wire} B, ${third.wire} B`,
  );
  for (const next of [second, third]) {
    expect(next.status.events.every((e) => e.seq > seq1)).toBe(true);
    expect(next.wire).toBeLessThanOrEqual(2048);
    expect(next.wire).toBeLessThan(first.wire);
  }
  expect(third.status.events.every((e) => e.seq > seq2)).toBe(true);
  expect(third.status.recent.every((r) => r.seq > seq2)).toBe(true);
  // Unchanged since the second poll: left out of the third.
  expect(third.status.settings).toBeUndefined();
  expect(third.status.device).toBeUndefined();
}, 20_000);

test("a seq past the newest (a page from before a board's reboot) gets everything", async () => {
  const all = await poll(0);
  const past = await poll(4_000_000_000);
  expect(past.status.settings).toBeDefined();
  expect(past.status.events.length).toBeGreaterThanOrEqual(all.status.events.length - 5);
});
