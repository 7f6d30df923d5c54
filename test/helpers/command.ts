// Runs a command for a test (make, gcc, npm, an emulator): its stdout, or an error that
// carries the command line, where it ran, its exit status and both outputs.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The repository's root, where commands run by default. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export function run(cmd: string, args: string[], cwd = ROOT, env?: NodeJS.ProcessEnv): string {
  try {
    return execFileSync(cmd, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    throw new Error(
      `${cmd} ${args.join(" ")} (in ${cwd}) exited ${err.status}\n${err.stdout}\n${err.stderr}`,
    );
  }
}

/** `tsx script ...args` as `node --import tsx`: npx and tsx's own CLI process cost about a
 * second of CPU more per script. */
export const tsxArgs = (script: string, ...args: string[]): string[] => ["--import", "tsx", script, ...args];

/** Runs a TypeScript script of the repository like `run`. */
export const runTsx = (script: string, ...args: string[]): string =>
  run(process.execPath, tsxArgs(script, ...args));

/** `make -s -C test/boards target`, one make at a time across the test files, which vitest
 * runs at once: two makes whose targets share a file (the wasm2c sources, page_check) would
 * both write it, and a test could run a binary while the other make relinks it. */
export function makeBoards(target: string): string {
  mkdirSync(`${ROOT}build`, { recursive: true });
  return run("flock", [`${ROOT}build/.make.lock`, "make", "-s", "-C", "test/boards", target]);
}
