// The device against an upstream that answers 200 and never stops sending: what it costs
// the device in CPU while every attempt is cut off at MAX_ANSWER_BYTES (issue 34, item 9:
// 77% of a core before the bound). The upstream runs in a process of its own, so this
// process's CPU time is the device's (its loop, its page server, its attempts).
// hostile-upstream.test.ts holds the behaviour (bytes read, outcome); this the figure.
import { spawn } from "node:child_process";
import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startSimulation } from "../host/tools/src/device/simulation.js";

export interface HostileFigures {
  seconds: number;
  /** The device's CPU time over wall time. */
  cpuShare: number;
  /** Connections the device opened to the upstream. */
  connections: number;
  /** The most one connection read, bytes. */
  maxReadBytes: number;
  /** What the upstream's sockets took (flushed to the kernel), MB: mostly the kernels' buffers. */
  upstreamMb: number;
}

// Plain JavaScript for the upstream's process: writes 64 KiB chunks as fast as each socket
// takes them; tells its port, and on asking the bytes flushed so far.
const ENDLESS = `
const { createServer } = require("node:http");
const chunk = Buffer.alloc(64 * 1024, 0x20);
let bytes = 0;
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { "content-type": "application/json" });
  const flushed = (err) => { if (!err) bytes += chunk.length; };
  const more = () => {
    while (!res.destroyed && res.write(chunk, flushed));
    if (!res.destroyed) res.once("drain", more);
  };
  more();
});
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("message", () => process.send({ bytes }));
`;

/** A short policy, so that attempts follow each other as fast as the device makes them. */
const POLICY = {
  maxAttempts: 5,
  attemptTimeout: 1000,
  baseDelay: 50,
  maxDelay: 400,
  throttleBaseDelay: 100,
  deadline: 6000,
  jitter: "FULL",
  idempotent: true,
} as const;

export async function benchHostileUpstream(seconds: number): Promise<HostileFigures> {
  const upstream = spawn(process.execPath, ["-e", ENDLESS], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const ask = () =>
    new Promise<{ port?: number; bytes?: number }>((resolve) => upstream.once("message", resolve));
  try {
    const { port } = await ask();
    const sockets: Socket[] = [];
    subscribe("net.client.socket", (m) => sockets.push((m as { socket: Socket }).socket));
    const sim = await startSimulation({
      port: 0,
      policy: POLICY,
      uploadEveryMs: 50,
      upstreamUrl: `http://127.0.0.1:${port}/upload`,
    });
    const cpu = process.cpuUsage();
    const wall = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const used = process.cpuUsage(cpu);
    const cpuShare = (used.user + used.system) / 1000 / (performance.now() - wall);
    await sim.close();
    const read = sockets.map((s) => s.bytesRead).filter((b) => b > 0);
    const counted = ask();
    upstream.send("count");
    const { bytes = 0 } = await counted;
    return {
      seconds,
      cpuShare: Number(cpuShare.toFixed(3)),
      connections: read.length,
      maxReadBytes: Math.max(0, ...read),
      upstreamMb: Math.round(bytes / 1e6),
    };
  } finally {
    upstream.kill("SIGTERM");
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { json: { type: "boolean" }, seconds: { type: "string" } } });
  const figures = await benchHostileUpstream(Number(values.seconds ?? 5));
  console.log(values.json ? JSON.stringify(figures) : figures);
}
