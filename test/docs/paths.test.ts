// Every repository path the docs and the code's comments name exists: a file moved or renamed
// (as the C library's folder once was) leaves no reader at a dead end. A path is a word
// that starts with one of the repository's top folders; `{a,b}` stands for both names, and a
// `:line` suffix is dropped. Generated folders (build/, dist/) are built by `npm test` first.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";
import { ROOT, docFiles } from "./snippets.js";

/** Whether git ignores `path`: an output a command makes (a signed module, a key), not a file
 * the repository holds. */
function ignored(path: string): boolean {
  try {
    execFileSync("git", ["check-ignore", "-q", "--no-index", path], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

const TOP = ["assembly", "host", "boards", "docs", "scripts", "test", "bench", "examples"];
const PATH = new RegExp(`(?<![\\w./-])(?:${TOP.join("|")})/[\\w.{},/-]*[\\w}/]`, "g");
const CODE = /\.(ts|c|h|cpp|ino|js|css|html|sh|py)$/;
const SKIP = /(^|\/)(node_modules|dist|build|generated|out)(\/|$)|\.min\.js$/;

/** The source files whose comments are read: every tracked-looking code file outside build output. */
function codeFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && CODE.test(d.name))
    .map((d) => join(d.parentPath, d.name))
    .filter((f) => !SKIP.test(relative(ROOT, f)));
}

/** `a/{b,c}.h` as a/b.h and a/c.h; anything else as itself. */
function expand(path: string): string[] {
  const m = /^(.*?)\{([^}]*)\}(.*)$/.exec(path);
  return m ? m[2].split(",").flatMap((alt) => expand(m[1] + alt + m[3])) : [path];
}

/** The paths a file's text names, each with where. */
function named(file: string, commentsOnly: boolean): { where: string; path: string }[] {
  const found: { where: string; path: string }[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      const text = commentsOnly ? (/(\/\/|\/\*|^\s*\*|#\s)(.*)$/.exec(line)?.[2] ?? "") : line;
      for (const m of text.matchAll(PATH)) {
        const path = m[0].replace(/[.,]+$/, "");
        for (const p of expand(path)) found.push({ where: `${relative(ROOT, file)}:${i + 1}`, path: p });
      }
    });
  return found;
}

test("every repository path named in the docs and in comments exists", () => {
  const names = [
    ...docFiles().flatMap((f) => named(f, false)),
    ...TOP.filter((d) => d !== "docs").flatMap((d) => codeFiles(d).flatMap((f) => named(f, true))),
  ];
  expect(names.length).toBeGreaterThan(200);
  const missing = names
    .filter((n) => !existsSync(join(ROOT, n.path)) && !ignored(n.path))
    .map((n) => `${n.where}: ${n.path}`);
  expect(missing).toEqual([]);
});
