// `npm test` after the builds: `npm run check` and `vitest run` at once. One after the
// other, the checks (one process at a time, the fleet docs' experiments most of it) left one
// of two cores idle for over a minute; beside vitest they use the CPU its test files leave
// while they wait on processes, browsers and brokers. The checks run at a lower priority, so
// the tests that wait on wall-clock time keep theirs. Arguments go to vitest.
import { spawn, type ChildProcess } from "node:child_process";
import { getPriority, setPriority } from "node:os";
import { fileURLToPath } from "node:url";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const vitest = fileURLToPath(new URL("../node_modules/.bin/vitest", import.meta.url));
/** The checks' niceness: 10 more than this run's (19 is the lowest priority). */
const CHECK_NICENESS = Math.min(19, getPriority() + 10);

/** The exit code of `child` (1 when a signal ended it). */
const exited = (child: ChildProcess) =>
  new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });

// The checks' output is held back until vitest is done, so that it does not cut into
// vitest's report; a failing check still fails the run.
const check = spawn(npm, ["run", "check"], { stdio: ["ignore", "pipe", "pipe"] });
if (check.pid !== undefined) setPriority(check.pid, CHECK_NICENESS);
const output: Buffer[] = [];
check.stdout.on("data", (b: Buffer) => output.push(b));
check.stderr.on("data", (b: Buffer) => output.push(b));
const started = performance.now();
const seconds = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
let checkTook: string | undefined;
const checked = exited(check).finally(() => (checkTook = seconds()));

const tests = spawn(vitest, ["run", ...process.argv.slice(2)], { stdio: "inherit" });
const tested = await exited(tests);
const testsTook = seconds();
if (checkTook === undefined) console.log("waiting for npm run check, which ran beside the tests");
const checkCode = await checked;
process.stdout.write(Buffer.concat(output));
const verdict = checkCode === 0 ? "passed" : `failed (exit code ${checkCode})`;
console.log(`npm run check: ${verdict} after ${checkTook}, beside vitest run, done after ${testsTook}`);
process.exitCode = tested !== 0 ? tested : checkCode;
