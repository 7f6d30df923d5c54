// `npm run build:host`: compiles the host code to dist/ (JavaScript and .d.ts, tsc with
// tsconfig.build.json, from the public API and the CLI down through what they import)
// and copies host/'s other files (such as the setup page's browser script) beside the
// JavaScript that reads them. dist/ mirrors host/ one level below the package root, so
// a path the code resolves from its own URL (build/tickretry.wasm) is the same in both.
import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const host = join(root, "host");
const dist = join(root, "dist");

// A fresh dist/, so that nothing of a renamed or deleted source is packed.
rmSync(dist, { recursive: true, force: true });
execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
});
const assets = readdirSync(host, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && !e.name.endsWith(".ts"))
  .map((e) => relative(host, join(e.parentPath, e.name)));
for (const asset of assets) cpSync(join(host, asset), join(dist, asset));
console.log(
  `build:host: dist/ from host/ (${assets.length} non-TypeScript file(s) copied: ${assets.join(", ")})`,
);
