// `tickretry device` as a user starts it (npm start runs the same command after the
// build): it prints the page's URL, the page answers, the device retries against the
// outage it was told to simulate, and Ctrl-C (SIGINT) stops it cleanly. Started again on
// the same state file it goes on with the operations the first run left, and says so in
// its second line; another scenario on that file is refused unless --resume; a state file
// it cannot read is a message and exit code 2.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { spawnDevice, waitFor } from "../../../helpers/device.js";

/** The output's second line once it is whole (ended by its newline), else undefined. */
const secondLine = (out: string): string | undefined => {
  const lines = out.split("\n");
  return lines.length > 2 ? lines[1] : undefined;
};

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
      first.out().includes(`state file ${state}: nothing stored yet, a new scheduler`),
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

  const again = device("--state", state, "--upload-every", "0");
  try {
    const line = await waitFor("the state line", () => secondLine(again.out()), 20_000);
    expect(line).toMatch(
      /^state file \S+: RESUMED what the last run \(scenario outage over HTTP\) left: [1-9]\d* operation\(s\)/,
    );
  } finally {
    again.child.kill("SIGINT");
  }
  expect(await again.exited).toBe(0);

  // Another scenario on the same file: refused, naming both runs, and the file left as it was.
  const before = readFileSync(state, "utf8");
  const other = spawnDevice(["--scenario", "healthy", "--state", state]);
  expect(await other.exited).toBe(2);
  expect(other.out()).toContain(
    `tickretry device: state file ${state} holds what a run with scenario outage over HTTP left; ` +
      `this start asks for scenario healthy over HTTP. --resume goes on from it anyway`,
  );
  expect(readFileSync(state, "utf8")).toBe(before);

  const resumed = spawnDevice(["--scenario", "healthy", "--state", state, "--resume", "--upload-every", "0"]);
  try {
    const line = await waitFor("the state line", () => secondLine(resumed.out()), 20_000);
    expect(line).toMatch(/RESUMED what the last run \(scenario outage over HTTP\) left: [1-9]\d* operation/);
  } finally {
    resumed.child.kill("SIGINT");
  }
  expect(await resumed.exited).toBe(0);
}, 90_000);

it("refuses --resume without a state file, with exit code 2", async () => {
  const run = device("--state", "none", "--resume");
  expect(await run.exited).toBe(2);
  expect(run.out()).toContain("tickretry device: --resume goes on from a state file; not with --state none");
}, 30_000);

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
