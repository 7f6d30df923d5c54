// The npm packages as a user gets them: `npm pack` of a workspace in a clean copy of the
// repository (its tracked and unignored files, so the package's prepack must build the
// module and dist/ from nothing), with the tarball's own file listing.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "./command.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
export const NO_COLOR = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };

export interface Packed {
  /** The tarball's path. */
  tarball: string;
  /** Its files, without the leading package/, sorted. */
  files: string[];
}

/** A fresh folder with a copy of the repository in source/ (node_modules linked, not copied). */
export function copyRepository(prefix: string): { work: string; source: string } {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const source = join(work, "source");
  const files = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT, NO_COLOR)
    .split("\0")
    .filter((f) => f && existsSync(join(ROOT, f)));
  for (const f of files) {
    mkdirSync(dirname(join(source, f)), { recursive: true });
    cpSync(join(ROOT, f), join(source, f));
  }
  symlinkSync(join(ROOT, "node_modules"), join(source, "node_modules"), "dir");
  return { work, source };
}

/** `npm pack -w workspace` in the copy, the tarball left in work/; with `ignoreScripts`,
 * without its prepack (for a package another pack in the same copy has built). */
export function pack(work: string, source: string, workspace: string, ignoreScripts = false): Packed {
  const before = new Set(readdirSync(work));
  const args = ["pack", "-w", workspace, "--pack-destination", work];
  // The tarball's own listing: npm pack --json would mix prepack's output into its stdout.
  run(NPM, ignoreScripts ? [...args, "--ignore-scripts"] : args, source, NO_COLOR);
  const name = readdirSync(work).find((f) => f.endsWith(".tgz") && !before.has(f));
  if (!name) throw new Error(`npm pack -w ${workspace} left no tarball in ${work}`);
  const tarball = join(work, name);
  const files = run("tar", ["-tzf", tarball], work, NO_COLOR)
    .split("\n")
    .filter((p) => p && !p.endsWith("/"))
    .map((p) => p.replace(/^package\//, ""))
    .sort();
  return { tarball, files };
}

/** A copy of examples/<name> in work/example, with each tarball placed under its file name and
 * installed there by a plain `npm install` (the example's other dependencies from the registry). */
export function installExample(work: string, name: string, tarballs: Record<string, string>): string {
  const example = join(work, "example");
  cpSync(join(ROOT, "examples", name), example, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|[^/\\]+\.tgz)$/.test(src),
  });
  for (const [file, tarball] of Object.entries(tarballs)) cpSync(tarball, join(example, file));
  run(NPM, ["install", "--no-audit", "--no-fund", "--prefer-offline"], example, NO_COLOR);
  return example;
}

/** The paths both packages may ship whatever else they carry: the manifest, the README, the
 * licence and the compiled code with its types. */
export const SHIPPED_BY_EVERY_PACKAGE: RegExp[] = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^dist\/.+\.(js|d\.ts)$/,
];

/** The packed files that match none of the allowed paths, and the needed ones that are missing. */
export function unexpected(packed: Packed, allowed: RegExp[], needed: string[]): string[] {
  const extra = packed.files.filter((p) => !allowed.some((re) => re.test(p)));
  return [...extra, ...needed.filter((n) => !packed.files.includes(n)).map((n) => `missing: ${n}`)];
}
