// The tickretry CLI for a test: the real binary as a process (what a user runs: the built
// dist/, its exit code, both outputs), or a command's function in this process, which costs
// no start-up of its own (about a second of CPU a case) and prints nothing to the test run.
import { spawnSync } from "node:child_process";
import { vi } from "vitest";
import { ROOT, run } from "./command.js";

/** What a command did: its exit code and what it printed. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI's bin, from the repository's root: it runs the compiled dist/. */
export const BIN = "host/tools/bin/tickretry.js";

/** How long a command may run before it is killed (its code then null): a command that
 * hangs fails its test instead of blocking the run. */
const TIMEOUT_MS = 60_000;

/** `tickretry ...args` as a process from the repository's root, whatever its exit code. */
export function tickretry(...args: string[]): CommandResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: TIMEOUT_MS });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The stdout of `tickretry ...args`, or an error with both outputs unless it exits 0. */
export const tickretryOk = (...args: string[]): string => run(process.execPath, [BIN, ...args]);

/** A command's function run here with `args`, console.log and console.error captured. */
export async function commandHere(
  command: (args: string[]) => Promise<number>,
  args: string[],
): Promise<CommandResult> {
  const out = vi.spyOn(console, "log").mockImplementation(() => {});
  const err = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const code = await command(args);
    const text = (spy: typeof out) => spy.mock.calls.map((c) => c.join(" ")).join("\n");
    return { code, stdout: text(out), stderr: text(err) };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
