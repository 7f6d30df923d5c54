// The scripts a fresh machine runs first: .ci/run stops with a message when it cannot
// enter the repository, and setup-debian.sh's DEBIAN_FRONTEND reaches apt-get under sudo.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

const root = join(import.meta.dirname, "../..");

test(".ci/run says so and stops when its cd fails, running nothing", () => {
  // With -c, $0 is the next argument: a path whose folder does not exist.
  const script = readFileSync(join(root, ".ci/run"), "utf8");
  const r = spawnSync("bash", ["-c", script, "/nonexistent/tickretry/.ci/run"], {
    cwd: root,
    encoding: "utf8",
  });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(".ci/run: cannot enter the repository root from /nonexistent/tickretry/.ci/run");
  expect(r.stdout).toBe(""); // no "+ command": nothing ran
});

test("setup-debian.sh passes DEBIAN_FRONTEND through env on every apt-get, so sudo keeps it", () => {
  const lines = readFileSync(join(root, "scripts/setup-debian.sh"), "utf8")
    .split("\n")
    .filter((l) => /\bapt-get\b/.test(l) && !l.trimStart().startsWith("#"));
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const l of lines) expect(l).toMatch(/^\$sudo env DEBIAN_FRONTEND=noninteractive apt-get /);
});
