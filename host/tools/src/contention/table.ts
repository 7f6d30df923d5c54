// The contention results as two tables (writes sent, completion time), one row per
// strategy and one column per client count, in text for the terminal and in Markdown.
import { markdownTable } from "../markdown.js";
import type { ContentionRow } from "./experiment.js";

const FIGURES = [
  { key: "calls", title: "writes sent (calls)", format: (v: number) => v.toFixed(0) },
  { key: "completionMs", title: "completion ms", format: (v: number) => v.toFixed(0) },
] as const;

function grid(rows: ContentionRow[], figure: (typeof FIGURES)[number]): string[][] {
  const counts = [...new Set(rows.map((r) => r.clients))];
  const strategies = [...new Set(rows.map((r) => r.strategy))];
  const cell = (s: string, n: number) =>
    figure.format(rows.find((r) => r.strategy === s && r.clients === n)![figure.key]);
  return [
    [figure.title, ...counts.map((n) => `${n} clients`)],
    ...strategies.map((s) => [s, ...counts.map((n) => cell(s, n))]),
  ];
}

function caption(rows: ContentionRow[], seed: number): string {
  return `mean over ${rows[0].runs} runs, seed ${seed}`;
}

export function formatContention(rows: ContentionRow[], seed: number): string {
  const tables = FIGURES.map((f) => {
    const g = grid(rows, f);
    const widths = g[0].map((_, i) => Math.max(...g.map((r) => r[i].length)));
    return g
      .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "))
      .join("\n");
  });
  return [caption(rows, seed), ...tables].join("\n\n");
}

export function formatContentionMarkdown(rows: ContentionRow[], seed: number): string {
  const tables = FIGURES.map((f) => {
    const [header, ...body] = grid(rows, f);
    return markdownTable(header, body, true);
  });
  return [`${caption(rows, seed)}:`, ...tables].join("\n\n");
}
