// docs/performance.md is written by `npm run bench -- --write`; its figures move with the
// machine, so the test run checks its structure: where, when and how it was measured, and
// one row per figure bench/rows.ts defines, in that order.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { COMMAND, END, PERFORMANCE_DOC, START } from "../../bench/performance-doc.js";
import { ROWS } from "../../bench/rows.js";

const text = readFileSync(PERFORMANCE_DOC, "utf8");
const block = text.slice(text.indexOf(START), text.indexOf(END));

test("the generated block is there, once", () => {
  expect(text.split(START)).toHaveLength(2);
  expect(text.split(END)).toHaveLength(2);
  expect(text.indexOf(START)).toBeLessThan(text.indexOf(END));
});

test("it says on which machine, on which date and by which command", () => {
  expect(block).toMatch(/^- machine: .*\d+ cores, \d+ GiB, .*Node v\d+/m);
  expect(block).toMatch(/^- date: \d{4}-\d{2}-\d{2}$/m);
  expect(block).toContain(`- command: \`${COMMAND}\``);
});

test("its table has a row for every figure of bench/rows.ts, in order, each with a value", () => {
  const rows = block
    .split("\n")
    .filter((l) => l.startsWith("|"))
    .slice(2)
    .map((l) => l.split("|").map((c) => c.trim()));
  expect(rows.map((r) => r[1].replace(/^\*\*(.*)\*\*$/, "$1"))).toEqual(ROWS.map((r) => r.name));
  rows.forEach((r, i) => expect(r[2] !== "", ROWS[i].name).toBe(ROWS[i].value !== undefined));
});
