// `npm run build:host`: compiles the two host packages to their dist/ folders (JavaScript
// and .d.ts, tsc with each package's tsconfig.build.json), the library first because the
// tools import it by its package name, and copies the repository files the tools read
// (host/tools/src/assets.ts lists them) into host/tools/assets/ under their repository paths,
// and the repository's LICENSE into each package.
import { execFileSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ASSET_SOURCES } from "../../host/tools/src/assets.js";

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const tsc = join(root, "node_modules", ".bin", "tsc");

for (const pkg of ["host/library", "host/tools"]) {
  // A fresh dist/, so that nothing of a renamed or deleted source is packed.
  rmSync(join(root, pkg, "dist"), { recursive: true, force: true });
  execFileSync(tsc, ["-p", join(root, pkg, "tsconfig.build.json")], { stdio: "inherit" });
  // npm packs a package's licence only from the package's own folder.
  cpSync(join(root, "LICENSE"), join(root, pkg, "LICENSE"));
}
const assets = join(root, "host/tools/assets");
rmSync(assets, { recursive: true, force: true });
for (const source of ASSET_SOURCES) cpSync(join(root, source), join(assets, source), { recursive: true });
console.log(`build:host: host/library/dist, host/tools/dist, host/tools/assets (${ASSET_SOURCES.join(", ")})`);
