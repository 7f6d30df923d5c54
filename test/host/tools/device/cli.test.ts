// `tickretry device` as a user starts it (npm start runs the same command after the
// build): it prints the page's URL, the page answers, the device retries against the
// outage it was told to simulate, and Ctrl-C (SIGINT) stops it cleanly. Started again on
// the same state file, it goes on with the operations the first run left; a state file it
// cannot read is a message and exit code 2.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { spawnDevice, waitFor } from "../../../helpers/device.js";

const dir = mkdtempSync(join(tmpdir(), "tickretry-cli-"));

function device(...extra: string[]) {
  return spawnDevice(["--scenario", "outage", "--scale", "0.1", ...extra]);
}

it("serves the page and retries against the outage, stops on SIGINT, and goes on from its state file", async () => {
  const state = join(dir, "state.json");
  const first = device("--state", state, "--upload-every", "200");
  try {
    const url = await waitFor("the page's URL", () => /setup page (http:\S+)/.exec(first.out())?.[1], 20_000);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    // Each line may arrive in its own chunk: wait for it rather than expect it with the URL.
    await waitFor("the state file line", () =>
      first.out().includes(`state file ${state}: nothing stored yet`),
    );
    expect((await fetch(url)).status).toBe(200);
    await waitFor("a retry", async () => {
      const status = await (await fetch(new URL("/status.json", url))).json();
      return status.counters.RETRIES_SCHEDULED >= 1 && status.faults.scenario === "outage";
    });
  } finally {
    first.child.kill("SIGINT");
  }
  expect(await first.exited).toBe(0);

  const second = device("--state", state, "--upload-every", "0");
  try {
    await waitFor("the restore", () => /restored \d+ operation\(s\)/.test(second.out()), 20_000);
  } finally {
    second.child.kill("SIGINT");
  }
  expect(await second.exited).toBe(0);
}, 60_000);

it("refuses a state file it cannot read with exit code 2", async () => {
  const state = join(dir, "bad.json");
  writeFileSync(state, "not json");
  const run = device("--state", state);
  expect(await run.exited).toBe(2);
  expect(run.out()).toContain(`tickretry device: state file ${state}: not JSON`);
}, 30_000);

it.each([
  [
    "under /proc, where no folder can be made",
    () => "/proc/tickretry-nope/state.json",
    "cannot create the folder",
  ],
  [
    "through a regular file",
    () => {
      writeFileSync(join(dir, "regular"), "");
      return join(dir, "regular", "a", "state.json");
    },
    "it runs through a file that is not a folder",
  ],
])(
  "refuses a --state path %s in words, with exit code 2 (issue 20, defect 19)",
  async (_what, path, words) => {
    const state = path();
    const run = device("--state", state);
    expect(await run.exited).toBe(2);
    expect(run.out()).toContain(`tickretry device: state file ${state}: cannot`);
    expect(run.out()).toContain(words);
    expect(run.out()).not.toMatch(/EEXIST|ENOTDIR|ENOENT|\n\s+at /);
  },
  30_000,
);
