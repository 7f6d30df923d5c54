// `npm run bench -- --write`: puts this run's table, with the machine, the date and the
// command, between the markers of docs/performance.md; the prose around it is kept.
import { cpus, release, totalmem } from "node:os";
import { readFileSync, writeFileSync } from "node:fs";
import { format, resolveConfig } from "prettier";
import { formatMarkdown, type Figures } from "./rows.js";

export const PERFORMANCE_DOC = new URL("../docs/performance.md", import.meta.url);
export const START = "<!-- bench: start (npm run bench -- --write) -->";
export const END = "<!-- bench: end -->";
export const COMMAND = "npm run bench -- --write";

/** The machine as one line: CPU model, cores, memory, OS release, Node version. */
export function machine(): string {
  const cpu = cpus();
  const gib = (totalmem() / 2 ** 30).toFixed(0);
  return `${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cpu.length} cores, ${gib} GiB, Linux ${release()}, Node ${process.version}`;
}

/** The generated block: where, when and how, then the table. */
export function performanceBlock(f: Figures, date: Date): string {
  return [
    START,
    "",
    `- machine: ${machine()}`,
    `- date: ${date.toISOString().slice(0, 10)}`,
    `- command: \`${COMMAND}\``,
    "",
    formatMarkdown(f),
    "",
    END,
  ].join("\n");
}

/** Replaces the block in docs/performance.md and formats the file as prettier would. */
export async function writePerformanceDoc(f: Figures, date = new Date()): Promise<void> {
  const text = readFileSync(PERFORMANCE_DOC, "utf8");
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/performance.md: the markers ${START} ... ${END} are missing`);
  const next = text.slice(0, a) + performanceBlock(f, date) + text.slice(b + END.length);
  const options = (await resolveConfig(PERFORMANCE_DOC.pathname)) ?? {};
  writeFileSync(PERFORMANCE_DOC, await format(next, { ...options, parser: "markdown" }));
}
