// Reads a table out of a section of docs/ABI.md, so tests check the contract's own
// examples rather than a copy of them.
import { readFileSync } from "node:fs";

const ABI_MD = new URL("../../docs/ABI.md", import.meta.url);

/** The rows (cells trimmed, header and rule dropped) of the first table under `## heading`. */
export function tableUnder(heading: string): string[][] {
  const text = readFileSync(ABI_MD, "utf8");
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/ABI.md has no section "## ${heading}"`);
  const end = text.indexOf("\n## ", start + 1);
  const lines = text.slice(start, end < 0 ? undefined : end).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (let i = first + 2; i < lines.length && lines[i].startsWith("|"); i++) {
    rows.push(
      lines[i]
        .slice(1, -1)
        .split(" | ")
        .map((c) => c.trim()),
    );
  }
  return rows;
}
