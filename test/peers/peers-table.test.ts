// docs/peers.md's table of peers is checked against the suite it describes, so neither can
// drift: every test file here has its row, the row's counts are the file's (a case is a
// test; a documented difference is a test whose name ends "(documented)"), every file
// opens by citing the commit it was read at, and every documented difference is named on
// the page (its test's name up to the first ":" or ";").
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";

const DIR = new URL("./", import.meta.url);
const PAGE = readFileSync(new URL("../../docs/peers.md", import.meta.url), "utf8");
const SELF = "peers-table.test.ts";
const DOCUMENTED = " (documented)";

/** The test names of a file: the string literal each test( opens with. */
const testNames = (source: string) =>
  [...source.matchAll(/\btest\(\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1"));

/** The page's first table: file -> [cases, agree, documented differences]. */
function pageRows(): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  const table = PAGE.slice(PAGE.indexOf("\n|")).split("\n\n")[0];
  for (const line of table.split("\n").slice(3)) {
    const cells = line.split("|").map((c) => c.trim());
    const file = /`test\/peers\/([^`]+)`/.exec(cells[2])?.[1];
    if (file) rows.set(file, cells.slice(3, 6).map(Number));
  }
  return rows;
}

const files = readdirSync(DIR).filter((f) => f.endsWith(".test.ts") && f !== SELF);

describe("docs/peers.md against test/peers/", () => {
  test("every peer file has its row, and the row's counts are the file's", () => {
    const rows = pageRows();
    expect([...rows.keys()].sort()).toEqual([...files].sort());
    for (const file of files) {
      const names = testNames(readFileSync(new URL(file, DIR), "utf8"));
      const documented = names.filter((n) => n.endsWith(DOCUMENTED)).length;
      expect([file, ...rows.get(file)!]).toEqual([file, names.length, names.length - documented, documented]);
    }
  });

  test("every peer file opens by citing the commit of the peer's source it was read at", () => {
    for (const file of files) {
      const opening = readFileSync(new URL(file, DIR), "utf8").split("\nimport")[0];
      expect([file, /@ [0-9a-f]{8}\b/.test(opening)]).toEqual([file, true]);
    }
  });

  test("every documented difference is named on the page", () => {
    const unnamed = files.flatMap((file) =>
      testNames(readFileSync(new URL(file, DIR), "utf8"))
        .filter((n) => n.endsWith(DOCUMENTED))
        .map((n) => n.split(/[:;] /)[0].replace(DOCUMENTED, ""))
        .filter((source) => !PAGE.includes(source))
        .map((source) => `${file}: ${source}`),
    );
    expect(unnamed).toEqual([]);
  });
});
