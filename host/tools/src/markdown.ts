// A Markdown table, as the docs' generated sections show them, its columns aligned as
// prettier aligns them, so that it reads as a table on a terminal too.

/** `head` over `rows`; `numbers`: the columns after the first are right-aligned. */
export function markdownTable(head: string[], rows: string[][], numbers = false): string {
  const right = (i: number) => numbers && i > 0;
  const widths = head.map((_, i) => Math.max(3, ...[head, ...rows].map((r) => r[i].length)));
  const pad = (cell: string, i: number) => (right(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]));
  const rule = widths.map((w, i) => (right(i) ? `${"-".repeat(w - 1)}:` : "-".repeat(w)));
  const line = (cells: string[]) => `| ${cells.map(pad).join(" | ")} |`;
  return [line(head), `| ${rule.join(" | ")} |`, ...rows.map(line)].join("\n");
}
