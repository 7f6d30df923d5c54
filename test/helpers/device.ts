// Shared by the device tests: a quick retry policy, a bounded wait for a condition, a closed
// port, the device CLI as a child process.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import type { PolicyFields } from "../../host/library/src/policy.js";

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
};

/** 300 ms before the wrap: every test crosses it. */
export const NEAR_WRAP = 2 ** 32 - 300;

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
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

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** `tickretry device --port 0 ...args` from the compiled CLI, its stdout and stderr collected together. */
export function spawnDevice(args: string[]): {
  child: ChildProcess;
  exited: Promise<number | null>;
  out: () => string;
} {
  const child = spawn(process.execPath, ["host/tools/bin/tickretry.js", "device", "--port", "0", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, exited, out: () => out };
}
