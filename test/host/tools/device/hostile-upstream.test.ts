// An upstream that answers 200 and then never stops sending (or sends a byte now and then):
// the device reads at most MAX_ANSWER_BYTES of an answer and waits at most MAX_ANSWER_MS
// for it to end, so the attempt fails TRANSIENT (or TIMEOUT) and the device's CPU is not
// spent reading (issue 34, item 9: 77% CPU and 16 GB read in 40 s). What the device reads is
// counted on its own sockets; what it costs in CPU is bench/hostile-upstream.ts's figure.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
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

/** What an endless upstream sent: bytes its sockets took (flushed to the kernel), and its
 * answers, with how many the device closed. */
interface Sent {
  bytes: number;
  answers: number;
  closed: number;
}

/** A loopback server that answers every request 200 with a body written by `body`. */
async function hostile(body: (res: ServerResponse, sent: Sent) => void) {
  const sent: Sent = { bytes: 0, answers: 0, closed: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    sent.answers++;
    res.once("close", () => sent.closed++);
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

/** A chunk of the endless body; the device's socket reads up to 64 KiB at a time as well. */
const CHUNK = 64 * 1024;

/** Writes CHUNK-byte chunks as fast as the socket takes them, for ever; counts each once flushed. */
function endless(res: ServerResponse, sent: Sent): void {
  const chunk = Buffer.alloc(CHUNK, 0x20);
  const flushed = (err?: Error | null) => {
    if (!err) sent.bytes += chunk.length;
  };
  const more = () => {
    while (!res.destroyed && res.write(chunk, flushed));
    if (!res.destroyed) res.once("drain", more);
  };
  more();
}

/** The bytes each client socket of this process read, while `body` runs (the device's own sockets). */
async function readBySockets<T>(body: () => Promise<T>): Promise<[T, number[]]> {
  const sockets: Socket[] = [];
  const onSocket = (m: unknown) => sockets.push((m as { socket: Socket }).socket);
  subscribe("net.client.socket", onSocket);
  try {
    const result = await body();
    return [result, sockets.map((s) => s.bytesRead)];
  } finally {
    unsubscribe("net.client.socket", onSocket);
  }
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

it("keeps a device against an endless upstream cheap: each attempt reads at most the bound and a chunk", async () => {
  const up = await hostile(endless);
  const [cutOff, read] = await readBySockets(async () => {
    const sim: Simulation = await startSimulation({
      port: 0,
      policy: QUICK,
      uploadEveryMs: 50,
      upstreamUrl: up.url,
    });
    open.push(sim);
    const over = `HTTP 200, answer over ${MAX_ANSWER_BYTES} bytes`;
    await waitFor(
      "attempts cut off",
      () => sim.device.uploads.recent.filter((e) => e.detail === over).length >= 5,
    );
    await sim.close();
    return sim.device.uploads.recent.filter((e) => e.detail === over).length;
  });
  const upstream = read.filter((bytes) => bytes > 0);
  expect(cutOff).toBeGreaterThanOrEqual(5);
  // Each connection the device read from stopped at the bound plus the one read that crossed
  // it (and the answer's head); before the bound it read the endless body at full speed.
  expect(upstream.length).toBeGreaterThanOrEqual(cutOff);
  expect(Math.max(...upstream)).toBeLessThanOrEqual(MAX_ANSWER_BYTES + CHUNK + 1024);
  // And it hung up on each: an endless answer ends only that way.
  await waitFor("every answer closed", () => up.sent.closed === up.sent.answers);
  expect(up.sent.answers).toBeGreaterThanOrEqual(cutOff);
  // The upstream's sockets took more than the device read: the two kernels' buffers, a few
  // MiB per connection on loopback, which the device never reads.
  expect(up.sent.bytes).toBeGreaterThan(0);
}, 30_000);
