// The library package (host/library) as a user gets it: packed in a clean copy of the
// repository, installed alone into an empty project (it brings no dependency of its own),
// and into a copy of examples/host-test with a plain `npm install` (dev dependencies from
// the registry), whose own test runs there: tsc against the published .d.ts, then vitest
// against the public API. A broken `exports`, a file missing from `files` or a type error
// in the .d.ts fails here.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { run } from "../../helpers/command.js";
import {
  copyRepository,
  installExample,
  NO_COLOR,
  NPM,
  pack,
  SHIPPED_BY_EVERY_PACKAGE,
  unexpected,
  type Packed,
} from "../../helpers/pack.js";

/** The paths a user of the library needs, and nothing else: every packed file matches one. */
const ALLOWED = [...SHIPPED_BY_EVERY_PACKAGE, /^build\/tickretry\.wasm$/];

const { work, source } = copyRepository("tickretry-library-package-");
let library: Packed;
let example: string;

beforeAll(() => {
  library = pack(work, source, "host/library");
  example = installExample(work, "host-test", { "tickretry.tgz": library.tarball });
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the library package", () => {
  test("packs only the library: compiled host code with its types, the module, the manifest", () => {
    const needed = ["build/tickretry.wasm", "dist/index.js", "dist/index.d.ts", "README.md", "LICENSE"];
    expect(unexpected(library, ALLOWED, needed)).toEqual([]);
    expect(library.files.some((p) => /device|fleet|chaos|contention|upstream|chart/.test(p))).toBe(false);
  });

  test("installed alone, it pulls no other package", () => {
    const alone = join(work, "alone");
    mkdirSync(alone);
    writeFileSync(join(alone, "package.json"), JSON.stringify({ name: "alone", private: true }));
    renameSync(library.tarball, join(alone, "tickretry.tgz"));
    run(NPM, ["install", "--no-audit", "--no-fund", "--offline", "./tickretry.tgz"], alone, NO_COLOR);
    expect(readdirSync(join(alone, "node_modules")).filter((n) => !n.startsWith("."))).toEqual(["tickretry"]);
  }, 120_000);

  test("the example's own test passes against the installed tarball (tsc, then vitest)", () => {
    const out = run(NPM, ["test"], example, NO_COLOR);
    expect(out).toMatch(/Tests\s+\S*1 passed/);
  }, 120_000);
});
