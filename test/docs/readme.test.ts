// The README is a guide for a newcomer's first hour: short, lines a terminal shows whole,
// the two commands .ci/run and people look for, and links that lead somewhere.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, test } from "vitest";

const root = join(import.meta.dirname, "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const lines = readme.trimEnd().split("\n");

test("it is at most about 150 lines, none over 100 characters", () => {
  expect(lines.length).toBeLessThanOrEqual(160);
  expect(lines.filter((l) => l.length > 100)).toEqual([]);
});

test("it opens with the two commands, in the form .ci/run parses", () => {
  expect(lines.slice(0, 6).filter((l) => /^Run the (simulated device|tests): `[^`]+`$/.test(l))).toHaveLength(
    2,
  );
});

test("every relative link leads to a file of the repository", () => {
  const targets = [...readme.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]);
  const relative = targets.filter((t) => !/^[a-z]+:/.test(t));
  expect(relative.length).toBeGreaterThan(5);
  expect(relative.filter((t) => !existsSync(join(dirname(join(root, "README.md")), t)))).toEqual([]);
});
