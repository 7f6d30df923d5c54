// Runs binaryen's wasm-opt over the release module asc wrote, then writes its text form.
// asc optimises already; these passes take off about another 140 bytes (issue 10's size
// goal), and asc cannot ask for them: ignoring implicit traps (the module has none: every
// load and store is inside its 4096 bytes, every divisor a constant) and re-looping the
// control flow. The features stay those asc used, bulk memory off (wasm3 0.5.0).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const wasm = fileURLToPath(new URL("../build/tickretry.wasm", import.meta.url));
const wat = fileURLToPath(new URL("../build/tickretry.wat", import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const features = ["--mvp-features", "--enable-mutable-globals", "--enable-sign-ext"];
const passes = ["--ignore-implicit-traps", "-Oz", "--flatten", "--rereloop", "-Oz", "-Oz", "--converge"];
execFileSync(bin("wasm-opt"), [...features, ...passes, wasm, "-o", wasm], { stdio: "inherit" });
execFileSync(bin("wasm-dis"), [wasm, "-o", wat], { stdio: "inherit" });
