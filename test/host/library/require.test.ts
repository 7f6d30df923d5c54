// The package is ES modules; require() loads it where Node runs ES modules from require
// without a flag (20.19 and 22.12 on), and engines asks for no older Node.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

const root = join(import.meta.dirname, "../../..");

test("require('tickretry') works from CommonJS", () => {
  const dir = mkdtempSync(join(root, "out/require-")); // inside the repository: node_modules/tickretry
  try {
    const file = join(dir, "main.cjs");
    writeFileSync(
      file,
      'const t = require("tickretry");\nprocess.stdout.write(String(t.create(1n).abiVersion()));\n',
    );
    const r = spawnSync(process.execPath, [file], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      String(JSON.parse(readFileSync(join(root, "assembly/constants.json"), "utf8")).abiVersion),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.each(["package.json", "host/library/package.json", "host/tools/package.json"])(
  "%s: engines starts where require() of ES modules needs no flag",
  (file) => {
    const engines = JSON.parse(readFileSync(join(root, file), "utf8")).engines.node;
    expect(engines).toBe("^20.19.0 || >=22.12.0");
  },
);
