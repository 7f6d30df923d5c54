// Writes build/trap/tickretry.wat: a module with every export of the ABI (from
// assembly/constants.json through host/library/src/generated/abi.ts) where `poll` traps, `abiVersion` answers the
// current version and every other export returns 0. The real module never traps, so
// this is how the tests reach tickretry_wasm2c.c's trap guard (test/boards/trap.c).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ABI_VERSION, EXPORTS } from "../../host/library/src/generated/abi.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const outPath = join(root, "build/trap/tickretry.wat");

const bodies: Record<string, string> = { poll: "unreachable", abiVersion: `i32.const ${ABI_VERSION}` };
let wat = '(module\n  (memory (export "memory") 1 1)\n';
for (const [name, spec] of Object.entries(EXPORTS)) {
  const params = spec.params.length ? ` (param${" i32".repeat(spec.params.length)})` : "";
  wat += `  (func (export "${name}")${params} (result i32) ${bodies[name] ?? "i32.const 0"})\n`;
}
wat += ")\n";
mkdirSync(dirname(outPath), { recursive: true });
writeFileSync(outPath, wat);
