// A module with every export of the ABI, compiled from text by wabt's wat2wasm (the real
// toolchain, on this machine): abiVersion answers the current version, poll and ended
// answer "none" (-1), every other export 0, and the bodies given replace any of those;
// the exports named in `omit` are left out.
// How the tests get a module that traps or loops, which the real one never does.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ABI_VERSION, EXPORTS } from "../../host/library/src/generated/abi.js";

export function stubModule(bodies: Record<string, string>, globals = "", omit: string[] = []): Buffer {
  const all: Record<string, string> = {
    abiVersion: `i32.const ${ABI_VERSION}`,
    poll: "i32.const -1",
    ended: "i32.const -1",
    ...bodies,
  };
  let wat = `(module\n  (memory (export "memory") 1 1)\n${globals}`;
  for (const [name, spec] of Object.entries(EXPORTS)) {
    if (omit.includes(name)) continue;
    const params = spec.params.length ? ` (param${" i32".repeat(spec.params.length)})` : "";
    wat += `  (func (export "${name}")${params} (result i32) ${all[name] ?? "i32.const 0"})\n`;
  }
  const dir = mkdtempSync(join(tmpdir(), "tickretry-stub-"));
  writeFileSync(join(dir, "m.wat"), `${wat})\n`);
  execFileSync("wat2wasm", [join(dir, "m.wat"), "-o", join(dir, "m.wasm")]);
  return readFileSync(join(dir, "m.wasm"));
}
