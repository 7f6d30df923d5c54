// The code blocks of the docs a newcomer reads: README.md, docs/*.md and the READMEs under
// boards/ and host/, and docs/api/ (the examples of the doc comments). A block whose info
// string is `c` or `ts` is a test; `c sketch` or `ts sketch` marks one that is not meant to
// compile (pseudo-code), and other languages (sh, json, ini) are not checked here.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");

export interface Snippet {
  /** Where it starts, as `docs/device.md:207`. */
  where: string;
  lang: "c" | "ts";
  /** The info string's words after the language. */
  marks: string[];
  code: string;
}

/** The markdown files whose blocks are checked: found, not listed, so a new page counts. */
export function docFiles(): string[] {
  const md = (dir: string) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith(".md"))
      .map((f) => join(ROOT, dir, f));
  const readmes = (dir: string) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(ROOT, dir, d.name, "README.md"))
      .filter((f) => readdirSync(join(f, "..")).includes("README.md"));
  return [
    join(ROOT, "README.md"),
    ...md("docs"),
    ...md("docs/api"),
    join(ROOT, "boards/README.md"),
    ...readmes("boards"),
    ...readmes("host"),
  ];
}

// `typescript` is left out: docs/api/ shows declarations (not compilable) in such blocks.
const LANGS: Record<string, Snippet["lang"]> = { c: "c", ts: "ts" };

/** Every fenced block of `file` in a checked language. */
export function snippetsOf(file: string): Snippet[] {
  const lines = readFileSync(file, "utf8").split(/\r?\n/); // api-documenter writes CRLF
  const found: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${relative(ROOT, file)}:${i + 1}: a code block that is never closed`);
    const lang = LANGS[open[1]];
    if (lang) {
      const marks = open[2].split(/\s+/).filter(Boolean);
      const where = `${relative(ROOT, file)}:${i + 1}`;
      found.push({ where, lang, marks, code: lines.slice(i + 1, end).join("\n") + "\n" });
    }
    i = end;
  }
  return found;
}

export const isSketch = (s: Snippet) => s.marks.includes("sketch");

/** A C block with a main is a whole program: linked and run, not only compiled. */
export const isProgram = (s: Snippet) => s.lang === "c" && /^int main\s*\(/m.test(s.code);

/** A C block with setup and loop is a firmware: test/docs/fake_board.c is the board it runs on. */
export const isFirmware = (s: Snippet) =>
  s.lang === "c" && /^void setup\(void\)/m.test(s.code) && /^void loop\(void\)/m.test(s.code);

/** A TypeScript block of node:test tests, which a user may run under vitest as well. */
export const isNodeTest = (s: Snippet) => s.lang === "ts" && /from "node:test";/.test(s.code);

/** The block as a vitest file: README.md tells a vitest user to change only this import. */
export const asVitest = (s: Snippet) => s.code.replace(/from "node:test";/, 'from "vitest";');

/** The stand-ins an API page's one-line example may use without declaring them: the api it
 * calls (initialised), a handle, the clock, the arguments restore takes, a host's callbacks. */
const API_PRELUDE: [string, string][] = [
  ["api", "const api = create(1n);"],
  ["image", "const image = new Uint8Array(0);"],
  ["h", "const h = 0;"],
  ["now", "const now = 0;"],
  ["elapsed", "const elapsed = 0;"],
  ["elapsedMs", "const elapsedMs = 0;"],
  ["length", "const length = 0;"],
  ["session", "const session = 0;"],
  ["attempt", "const attempt = 1;"],
  ["storedAt", "const storedAt = 0;"],
  ["store", "const store = (_image: unknown) => {};"],
  ["headers", "const headers: Record<string, string> = {};"],
  [
    "policy",
    'const policy = { maxAttempts: 5, attemptTimeout: 2000, baseDelay: 100, maxDelay: 3000, throttleBaseDelay: 0, deadline: 0, jitter: "FULL" as const, idempotent: true };',
  ],
  ["startAttempt", "const startAttempt = (_h: number, _attempt: number) => {};"],
  ["loop", "const loop = new Loop(api, {} as ConstructorParameters<typeof Loop>[1]);"],
];

/**
 * The block as a file. A docs/api/ example is one line about one export, as a doc comment
 * shows it: it gets the imports of the package's exports it names (`exports`, the package's
 * names) and the stand-ins of API_PRELUDE it uses and does not declare, so that it
 * type-checks and runs as a user's line would in a file that has them.
 */
export function fileText(s: Snippet, exports: readonly string[]): string {
  // A whole example imports what it uses itself.
  if (!s.where.startsWith("docs/api/") || /from "tickretry"/.test(s.code)) return s.code;
  const declares = (name: string) => new RegExp(`\\b(const|let|var)\\s+${name}\\b`).test(s.code);
  // A name, not a property (`a.name`); a spread (`...name`) is a name.
  const uses = (name: string) => new RegExp(`(?<![\\w$])(?<!(?<!\\.)\\.)${name}\\b`).test(s.code);
  const stands = API_PRELUDE.filter(([name]) => uses(name) && !declares(name));
  const prelude = stands.map(([, line]) => line + "\n").join("");
  const needs = exports.filter(
    (name) => (uses(name) || new RegExp(`\\b${name}\\b`).test(prelude)) && !declares(name),
  );
  const imports = needs.length > 0 ? `import { ${needs.join(", ")} } from "tickretry";\n` : "";
  return imports + prelude + s.code;
}

/** A file name for a snippet: where it came from, readable in a failure. */
export function fileName(s: Snippet): string {
  return s.where.replace(/[^A-Za-z0-9]+/g, "_") + (s.lang === "c" ? ".c" : ".ts");
}
