// A Markdown table, as the docs' generated sections show them (prettier aligns it later).

/** `head` over `rows`; `numbers`: the columns after the first are right-aligned. */
export function markdownTable(head: string[], rows: string[][], numbers = false): string {
  const rule = head.map((_, i) => (numbers && i > 0 ? "---:" : "---"));
  return [head, rule, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}
