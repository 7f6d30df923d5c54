// `npm run bench:start`: how long `npm start` takes to print the page's URL when it is run
// again a few seconds after a first run stopped (issue 35: under 5 s). Each round starts
// the device, stops it with SIGINT once the URL shows, and starts it again at once; the
// second start's time to URL is the figure (median, min and max over the rounds).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ARGS = ["start", "--", "--port", "0", "--state", "none", "--quiet"];

/** Ms from spawning `npm start` to its "setup page" line; the process is stopped and reaped. */
function timeToUrl(): Promise<number> {
  const t0 = performance.now();
  // Its own process group, so that SIGINT reaches npm, tsx and the device alike.
  const child = spawn("npm", ARGS, { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    let ms: number | undefined;
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk;
      if (ms === undefined && out.includes("setup page ")) {
        ms = performance.now() - t0;
        process.kill(-child.pid!, "SIGINT");
      }
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      ms === undefined
        ? reject(new Error(`npm start exited (${code}) before its URL:\n${out}`))
        : resolve(ms),
    );
  });
}

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds wants a positive integer, got ${values.rounds}`);
const firsts: number[] = [];
const seconds: number[] = [];
for (let i = 0; i < rounds; i++) {
  firsts.push(await timeToUrl());
  seconds.push(await timeToUrl());
}
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `median ${Math.round(s[Math.floor(s.length / 2)])} ms (min ${Math.round(s[0])}, max ${Math.round(s.at(-1)!)})`;
};
console.log(`npm start, time to the page's URL over ${rounds} round(s):`);
console.log(`  first start:  ${summary(firsts)}`);
console.log(`  second start: ${summary(seconds)} (goal: under 5000 ms)`);
