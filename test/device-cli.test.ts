// `tickretry device` as a user starts it (npm start runs the same command after the
// build): it prints the page's URL, the page answers, the device retries against the
// outage it was told to simulate, and Ctrl-C (SIGINT) stops it cleanly.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { waitFor } from "./helpers/device.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

it("serves the page and retries against the outage, then stops on SIGINT", async () => {
  const args = ["bin/tickretry.js", "device", "--port", "0", "--scenario", "outage", "--scale", "0.1"];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    const url = await waitFor("the page's URL", () => /setup page (http:\S+)/.exec(out)?.[1], 20_000);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await fetch(url)).status).toBe(200);
    await waitFor("a retry", async () => {
      const status = await (await fetch(new URL("/status.json", url))).json();
      return status.counters.RETRIES_SCHEDULED >= 1 && status.faults.scenario === "outage";
    });
  } finally {
    child.kill("SIGINT");
  }
  expect(await exited).toBe(0);
}, 30_000);
