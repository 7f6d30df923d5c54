// The tools package (host/tools) as a user gets it: both packages packed in a clean copy
// of the repository and installed from their tarballs into a copy of examples/cli. The
// installed CLI runs from compiled code, from another directory, with no tsx anywhere in
// the install, and its device serves the page from the files the package carries.
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { run } from "../../helpers/command.js";
import { waitFor } from "../../helpers/device.js";
import {
  copyRepository,
  installExample,
  NO_COLOR,
  pack,
  SHIPPED_BY_EVERY_PACKAGE,
  unexpected,
  type Packed,
} from "../../helpers/pack.js";

const ALLOWED = [
  ...SHIPPED_BY_EVERY_PACKAGE,
  /^bin\/tickretry\.js$/,
  // The setup page the simulated device serves, the ABI its playground reads, the build key.
  /^assets\/boards\/page\/.+/,
  /^assets\/boards\/keys\/build-key\.pub$/,
  /^assets\/assembly\/constants\.json$/,
];

const { work, source } = copyRepository("tickretry-tools-package-");
const bin = join(work, "example/node_modules/.bin/tickretry");
let tools: Packed;

beforeAll(() => {
  // The tools' prepack builds both packages from nothing here. The library's prepack runs
  // the same two builds (test/host/library/package.test.ts tests it from nothing), so its
  // tarball is packed from these without running them a second time.
  tools = pack(work, source, "host/tools");
  const library = pack(work, source, "host/library", true);
  installExample(work, "cli", { "tickretry.tgz": library.tarball, "tickretry-tools.tgz": tools.tarball });
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the tools package", () => {
  test("packs the command line, its compiled code and the files it serves", () => {
    const needed = [
      "bin/tickretry.js",
      "dist/cli.js",
      "assets/boards/page/index.html",
      "assets/boards/page/manifest.json",
      "assets/boards/keys/build-key.pub",
      "assets/assembly/constants.json",
      "README.md",
      "LICENSE",
    ];
    expect(unexpected(tools, ALLOWED, needed)).toEqual([]);
  });

  test("the installed CLI runs from compiled code, from any directory, without tsx", () => {
    expect(existsSync(join(work, "example/node_modules/tsx"))).toBe(false);
    expect(run(bin, ["--help"], work, NO_COLOR)).toMatch(/^usage: tickretry <command>/);
    const rows = JSON.parse(
      run(bin, ["fleet", "--devices", "20", "--seeds", "1", "--strategies", "C", "--json"], work, NO_COLOR),
    );
    expect(rows).toMatchObject([{ strategy: "C", successRate: expect.any(Number) }]);
    expect(rows[0].totalRequests).toBeGreaterThan(0);
  }, 60_000);

  test("the installed CLI's device serves the setup page, its scripts and its module", async () => {
    const child = spawn(bin, ["device", "--port", "0", "--state", "none", "--quiet"], { cwd: work });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c));
    child.stderr.on("data", (c: Buffer) => (out += c));
    try {
      const url = await waitFor("the page's URL", () => /setup page (http:\S+)/.exec(out)?.[1], 20_000);
      for (const path of ["/", "/page.js", "/playground.js", "/loader.js", "/abi.json", "/tickretry.wasm"]) {
        expect([path, (await fetch(new URL(path, url))).status]).toEqual([path, 200]);
      }
      const status = await (await fetch(new URL("/status.json", url))).json();
      expect(status.device.name).toBe("simulator");
    } finally {
      child.kill("SIGINT");
    }
  }, 60_000);
});
