// An upstream that answers 200 and then never stops sending (or sends a byte now and then):
// the device reads at most MAX_ANSWER_BYTES of an answer and waits at most MAX_ANSWER_MS
// for it to end, so the attempt fails TRANSIENT (or TIMEOUT) and the device's CPU is not
// spent reading (issue 34, item 9: 77% CPU and 16 GB read in 40 s).
import { createServer, type Server, type ServerResponse } from "node:http";
import { afterEach, expect, it } from "vitest";
import { Outcome } from "../../../../host/library/src/generated/abi.js";
import {
  MAX_ANSWER_BYTES,
  MAX_ANSWER_MS,
  startAttempt,
  type AttemptResult,
} from "../../../../host/tools/src/device/link/http-attempt.js";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { QUICK, waitFor } from "../../../helpers/device.js";

const open: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** A loopback server that answers every request 200 with a body written by `body`; `sent` counts its bytes. */
async function hostile(body: (res: ServerResponse, sent: { bytes: number }) => void) {
  const sent = { bytes: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    body(res, sent);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push({
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/upload`, sent };
}

/** Writes 64 KiB chunks as fast as the socket takes them, for ever. */
function endless(res: ServerResponse, sent: { bytes: number }): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const more = () => {
    while (!res.destroyed && res.write(chunk)) sent.bytes += chunk.length;
    if (!res.destroyed) res.once("drain", more);
  };
  more();
}

const attempt = (url: string) =>
  new Promise<AttemptResult>((resolve) =>
    startAttempt({ url, operationId: 7, attempt: 1, body: "{}" }, resolve),
  );

it("cuts an endless answer off after MAX_ANSWER_BYTES: TRANSIENT", async () => {
  const up = await hostile(endless);
  expect(await attempt(up.url)).toEqual({
    outcome: Outcome.TRANSIENT,
    retryAfter: 0,
    detail: `HTTP 200, answer over ${MAX_ANSWER_BYTES} bytes`,
  });
});

it("gives a trickling answer MAX_ANSWER_MS: TIMEOUT", async () => {
  const up = await hostile((res) => {
    const drip = setInterval(() => res.write(" "), 200);
    res.once("close", () => clearInterval(drip));
  });
  const began = performance.now();
  expect(await attempt(up.url)).toMatchObject({ outcome: Outcome.TIMEOUT });
  expect(performance.now() - began).toBeGreaterThanOrEqual(MAX_ANSWER_MS - 50);
}, 15_000);

it("keeps a device against an endless upstream cheap: little read, little CPU", async () => {
  const up = await hostile(endless);
  const sim: Simulation = await startSimulation({
    port: 0,
    policy: QUICK,
    uploadEveryMs: 50,
    upstreamUrl: up.url,
  });
  open.push(sim);
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await waitFor("attempts cut off", () =>
    sim.device.uploads.recent.some((e) => e.detail === `HTTP 200, answer over ${MAX_ANSWER_BYTES} bytes`),
  );
  await new Promise((r) => setTimeout(r, 2000));
  const used = process.cpuUsage(cpu);
  const share = (used.user + used.system) / 1000 / (performance.now() - wall);
  // Before the bound the device read the endless body at full speed: gigabytes, a whole core.
  expect(up.sent.bytes).toBeLessThan(256 * 1024 * 1024);
  expect(share).toBeLessThan(0.5);
}, 30_000);
