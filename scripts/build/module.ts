// `npm run build`: the release module, host/library/build/tickretry.wasm (asc, then
// shrink.ts's wasm-opt), built only when an input changed. The inputs are every file under
// assembly/, asconfig.json, this script and shrink.ts, and the versions of assemblyscript and
// binaryen; their hash is kept beside the module (build/ is not tracked), so `npm start`
// and `npm test` after an unchanged checkout take a second, not a compile. `--force`
// builds anyway. npm start calls buildModule in its own process (scripts/start.ts).
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const out = join(root, "host/library/build");
const MODULE = join(out, "tickretry.wasm");
const STAMP = join(out, "tickretry.inputs");
const bin = (name: string) => join(root, "node_modules/.bin", name);

/** Every file under dir, sorted, so the hash does not depend on the directory's order. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .sort();
}

const version = (pkg: string) =>
  (JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string })
    .version;

function inputsHash(): string {
  const hash = createHash("sha256");
  const files = [
    ...filesUnder(join(root, "assembly")),
    join(root, "asconfig.json"),
    fileURLToPath(import.meta.url),
    join(root, "scripts/build/shrink.ts"),
  ];
  for (const f of files) hash.update(`${relative(root, f)}\0`).update(readFileSync(f)).update("\0");
  hash.update(`assemblyscript ${version("assemblyscript")}\0binaryen ${version("binaryen")}`);
  return hash.digest("hex");
}

/** Builds the module when an input changed (or `force`); returns the line that says which. */
export function buildModule(force = false): string {
  const inputs = inputsHash();
  const current = existsSync(MODULE) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === inputs;
  if (current && !force) return "build: host/library/build/tickretry.wasm is current (no input changed)";
  execFileSync(bin("asc"), ["assembly/index.ts", "--target", "release"], { cwd: root, stdio: "inherit" });
  execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts/build/shrink.ts")], {
    cwd: root,
    stdio: "inherit",
  });
  writeFileSync(STAMP, inputs);
  return `build: host/library/build/tickretry.wasm, ${readFileSync(MODULE).length} bytes`;
}

// Run as a script (npm run build); npm start imports it instead (scripts/start.ts).
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  console.log(buildModule(process.argv.includes("--force")));
}
