// The chaos runner's processes: the upstream and the device, each `tickretry` in a child
// process of its own, started and waited for until they say they serve, then stopped
// with the signal the run calls for. Only the processes started here are ever signalled.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/tickretry.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
/** Output kept for the message when a process fails. */
const TAIL = 4000;

export interface Child {
  process: ChildProcess;
  /** The ready line's match. */
  ready: RegExpExecArray;
  /** Its exit: the code, or the signal's name. */
  exited: Promise<number | string>;
  /** The last TAIL characters it printed. */
  output(): string;
}

/** Runs `tickretry ...args` and resolves once a line of its output matches `ready`. */
export function startTickretry(args: string[], ready: RegExp, timeoutMs = 60_000): Promise<Child> {
  const process = spawn(globalThis.process.execPath, [BIN, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (chunk: Buffer) => (out = (out + chunk.toString()).slice(-TAIL));
  process.stdout!.on("data", keep);
  process.stderr!.on("data", keep);
  const exited = new Promise<number | string>((resolve) =>
    process.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill("SIGKILL");
      reject(new Error(`tickretry ${args[0]} did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const look = () => {
      const match = ready.exec(out);
      if (match === null) return;
      clearTimeout(timer);
      process.stdout!.off("data", look);
      resolve({ process, ready: match, exited, output: () => out });
    };
    process.stdout!.on("data", look);
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`tickretry ${args[0]} exited (${how}) before it served:\n${out}`));
    });
  });
}

/** Sends `signal` and waits for the exit; returns how it exited. */
export async function stop(child: Child, signal: NodeJS.Signals): Promise<number | string> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill(signal);
  return child.exited;
}

/** How the child exited, or "still running" when it has not within `ms`. */
export async function exitWithin(child: Child, ms: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(resolve, ms, "still running")));
  try {
    return await Promise.race([child.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}
