// The TypeScript, AssemblyScript and C views and the tables of docs/ABI.md are generated
// from assembly/constants.json; a stale one fails the run, and so does a constants.json whose
// end reasons, counters and slot bits no longer line up.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ABI_VERSION } from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { tsxArgs } from "../helpers/command.js";

test("every generated view matches assembly/constants.json", () => {
  expect(() =>
    execFileSync(process.execPath, tsxArgs("scripts/gen/abi.ts", "--check"), {
      stdio: "pipe",
      encoding: "utf8",
    }),
  ).not.toThrow();
});

test("the module was built from the same ABI version", () => {
  expect(create().abiVersion()).toBe(ABI_VERSION);
});

describe("npm run gen refuses a constants.json whose parts no longer line up", () => {
  const constants = JSON.parse(readFileSync("assembly/constants.json", "utf8"));
  const dir = mkdtempSync(join(tmpdir(), "tickretry-gen-"));
  /** gen's exit status and message for constants.json changed by `edit`. */
  function gen(edit: (c: typeof constants) => void): { status: number; stderr: string } {
    const copy = structuredClone(constants);
    edit(copy);
    const path = join(dir, "constants.json");
    writeFileSync(path, JSON.stringify(copy));
    const run = spawnSync(process.execPath, tsxArgs("scripts/gen/abi.ts", "--check", "--constants", path), {
      encoding: "utf8",
    });
    return { status: run.status ?? -1, stderr: run.stderr };
  }

  test.each([
    [
      "SLOT_BITS that does not name OPERATIONS slots",
      (c: typeof constants) => (c.limit.OPERATIONS = 32),
      /SLOT_BITS/,
    ],
    ["an end reason without its counter", (c: typeof constants) => (c.endReason.LOST = 8), /ENDED_LOST/],
    [
      "ENDED_* counters out of end-reason order",
      (c: typeof constants) => {
        [c.counter.ENDED_BUDGET, c.counter.ENDED_DEADLINE] = [
          c.counter.ENDED_DEADLINE,
          c.counter.ENDED_BUDGET,
        ];
      },
      /ENDED_DEADLINE/,
    ],
    ["a counter without an end reason", (c: typeof constants) => (c.counter.ENDED_LATE = 14), /ENDED_LATE/],
    ["COUNT that is not the number of counters", (c: typeof constants) => (c.counter.COUNT = 15), /COUNT/],
  ])("%s", (_, edit, message) => {
    const { status, stderr } = gen(edit);
    expect(status).toBe(2);
    expect(stderr).toMatch(message);
  });
});
