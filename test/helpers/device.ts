// Shared by the device tests: a quick retry policy, a device in virtual time against a
// real upstream (runUntil, runFor), a bounded wall-clock wait for the end-to-end tests, a
// closed port, the device CLI as a child process.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import type { PolicyFields } from "../../host/library/src/policy.js";
import type { VirtualClock } from "../../host/tools/src/device/clock.js";
import type { Device } from "../../host/tools/src/device/device.js";
import type { Upstream } from "../../host/tools/src/upstream/server.js";
import { BIN } from "./cli.js";
import { ROOT } from "./command.js";

/** Retries in tens of ms; the attempt timeout stays at 1 s so a loaded machine does not time out healthy answers. */
export const QUICK: PolicyFields = {
  maxAttempts: 5,
  attemptTimeout: 1000,
  baseDelay: 50,
  maxDelay: 400,
  throttleBaseDelay: 100,
  deadline: 6000,
  jitter: "FULL",
  idempotent: true,
  // The upstream's "busy" asks for 2 s, more than maxDelay: honoured, as the tests expect.
  maxRetryAfter: 10_000,
};

/** 300 ms before the wrap: every test crosses it. */
export const NEAR_WRAP = 2 ** 32 - 300;

/** Polls `check` until it returns a value other than undefined/false, or fails after
 * `timeoutMs` of wall time: for the end-to-end tests (the real setup server, Chromium, a
 * child process), where the device runs in real time. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A port that was free a moment ago: nothing listens there. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** `tickretry device --port 0 ...args` from the compiled CLI, its stdout and stderr collected together. */
export function spawnDevice(args: string[]): {
  child: ChildProcess;
  exited: Promise<number | NodeJS.Signals | null>;
  out: () => string;
} {
  const child = spawn(process.execPath, [BIN, "device", "--port", "0", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk));
  // A signal's name when one ended the process (a crash shows as SIGSEGV or SIGABRT, say).
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal)),
  );
  return { child, exited, out: () => out };
}

/** A device on a virtual clock against a real upstream on loopback: the clock moves only
 * when a test moves it, the network is real. */
export interface VirtualRig {
  clock: VirtualClock;
  device: Device;
  upstream: Upstream;
}

/** Requests of the device still waiting for their answer. */
const awaiting = (device: Device) =>
  [...device.uploads.ops.values()].filter((o) => o.flight && !o.flight.result).length;

/** Requests the upstream holds for good: under "hang" (elsewhere it holds one only for its latency). */
function hung(upstream: Upstream): number {
  const s = upstream.stats();
  return s.scenario === "hang" ? s.holding : 0;
}

/** Guards the loopback I/O below against an upstream that neither answers nor holds a request. */
const IO_GUARD_MS = 10_000;

/**
 * Lets the real I/O catch up with virtual time: returns once every request in flight has
 * its answer or is held by a hanging upstream (which only the module's timeout ends).
 * It waits for loopback I/O only, never for time to pass.
 */
export async function settle({ device, upstream }: VirtualRig): Promise<void> {
  const guard = performance.now() + IO_GUARD_MS;
  for (let n = awaiting(device); n > 0 && n !== hung(upstream); n = awaiting(device)) {
    if (performance.now() > guard)
      throw new Error(`${n} request(s) neither answered nor held by the upstream`);
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * Runs the rig in virtual time until `check` returns a value other than undefined/false:
 * between passes the I/O settles, then the clock jumps to the next timer (the next pass).
 * Fails once `limitMs` of virtual time have passed.
 */
export async function runUntil<T>(
  rig: VirtualRig,
  what: string,
  check: () => T | undefined | false,
  limitMs = 60_000,
): Promise<T> {
  const end = rig.clock.nowMs() + limitMs;
  for (;;) {
    await settle(rig);
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (!rig.clock.step(end)) throw new Error(`not within ${limitMs} virtual ms: ${what}`);
    // One turn of the event loop per pass, so I/O the device does not wait for (a socket
    // it closed reaching the upstream) goes on too.
    await new Promise((r) => setImmediate(r));
  }
}

/** Runs the rig for `ms` of virtual time (every pass due by then), letting the I/O settle between passes. */
export async function runFor(rig: VirtualRig, ms: number): Promise<void> {
  const end = rig.clock.nowMs() + ms;
  for (await settle(rig); rig.clock.step(end); await settle(rig)) await new Promise((r) => setImmediate(r));
  rig.clock.advance(end - rig.clock.nowMs());
}
