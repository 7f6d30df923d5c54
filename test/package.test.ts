// The npm package as a user gets it: `npm pack` in a clean copy of the repository (its
// tracked and unignored files, so prepare must build build/tickretry.wasm and dist/ from
// nothing), the tarball installed into a copy of examples/host-test with a plain
// `npm install` (dev dependencies from the registry), and that example's own test run
// there: tsc against the published .d.ts, then vitest against the public API. A broken
// `exports`, a file missing from `files` or a type error in the .d.ts fails here. The
// installed CLI runs from another directory, with no tsx anywhere in the install.
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { run } from "./helpers/command.js";
import { waitFor } from "./helpers/device.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "tickretry-package-"));
const source = join(work, "source");
const example = join(work, "example");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const NO_COLOR = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };

/** The paths a user needs, and nothing else: every packed file matches one of these. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^CHANGELOG\.md$/,
  /^docs\/ABI\.md$/,
  /^bin\/tickretry\.js$/,
  /^build\/tickretry\.wasm$/,
  /^dist\/.+\.(js|d\.ts)$/,
  /^boards\/common\/.+/,
  // The setup page the simulated device serves, the ABI its playground reads, the build key.
  /^boards\/page\/.+/,
  /^abi\/constants\.json$/,
  /^keys\/build-key\.pub$/,
];

let packed: string[] = [];

beforeAll(() => {
  const files = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root, NO_COLOR)
    .split("\0")
    .filter((f) => f && existsSync(join(root, f)));
  for (const f of files) {
    mkdirSync(dirname(join(source, f)), { recursive: true });
    cpSync(join(root, f), join(source, f));
  }
  symlinkSync(join(root, "node_modules"), join(source, "node_modules"), "dir");
  // The tarball's own listing: npm pack --json would mix prepare's output into its stdout.
  run(npm, ["pack", "--pack-destination", work], source, NO_COLOR);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack left no tarball in ${work}`);
  packed = run("tar", ["-tzf", join(work, tarball)], work, NO_COLOR)
    .split("\n")
    .filter((p) => p && !p.endsWith("/"))
    .map((p) => p.replace(/^package\//, ""))
    .sort();

  cpSync(join(root, "examples/host-test"), example, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|tickretry\.tgz)$/.test(src),
  });
  renameSync(join(work, tarball), join(example, "tickretry.tgz"));
  run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline"], example, NO_COLOR);
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the npm package", () => {
  test("packs only what a user needs: compiled host code, the module, the C library, docs", () => {
    expect(packed.filter((p) => !ALLOWED.some((re) => re.test(p)))).toEqual([]);
    for (const needed of [
      "bin/tickretry.js",
      "build/tickretry.wasm",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/cli.js",
      "boards/page/index.html",
      "boards/page/status-fields.json",
      "abi/constants.json",
      "keys/build-key.pub",
      "boards/common/tickretry.h",
      "boards/common/tickretry_abi.h",
      "boards/common/tickretry_module.h",
      "boards/common/library.json",
      "boards/common/library.properties",
      "boards/common/CMakeLists.txt",
      "boards/common/idf_component.yml",
      "LICENSE",
      "README.md",
      "CHANGELOG.md",
    ]) {
      expect(packed).toContain(needed);
    }
  });

  test("the example's own test passes against the installed tarball (tsc, then vitest)", () => {
    const out = run(npm, ["test"], example, NO_COLOR);
    expect(out).toMatch(/Tests\s+\S*1 passed/);
  }, 120_000);

  test("the installed CLI runs from compiled code, from any directory, without tsx", () => {
    expect(existsSync(join(example, "node_modules/tsx"))).toBe(false);
    const bin = join(example, "node_modules/.bin/tickretry");
    expect(run(bin, ["--help"], work, NO_COLOR)).toMatch(/^usage: tickretry <command>/);
    const rows = JSON.parse(
      run(bin, ["fleet", "--devices", "20", "--seeds", "1", "--strategies", "C", "--json"], work, NO_COLOR),
    );
    expect(rows).toMatchObject([{ strategy: "C", successRate: expect.any(Number) }]);
    expect(rows[0].totalRequests).toBeGreaterThan(0);
  }, 60_000);

  test("the installed CLI's device serves the setup page, its scripts and its module", async () => {
    const bin = join(example, "node_modules/.bin/tickretry");
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
