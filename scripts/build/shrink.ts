// Runs binaryen's wasm-opt over the release module asc wrote, then writes its text form.
// asc optimises once (asconfig.json has no `converge`: asc's own loop printed "Last converge
// was suboptimal." whenever its last round grew the module, a note that reads like an error,
// and left 3 bytes more than this pass does alone). Optimising for size again until nothing
// changes takes off about 30 bytes more (issue 18's size goal; re-looping the control flow
// with --flatten --rereloop, which once helped, now costs 20). Not --ignore-implicit-traps: it
// lets binaryen turn a guarded load (counter(id) with id out of range) into one made
// anyway, which traps. The features stay those asc used, bulk memory off (wasm3 0.5.0).
//
// The other options are for wasm3, whose heap holds the compiled code (boards/esp32/README.md,
// "Memory and stack settings"). A call costs a code line per argument copied and a function
// record of 56 bytes, so functions of up to six expressions are inlined everywhere (7
// functions and 66 lines fewer when this was set). wasm3 copies a function's constants into
// its frame at every call, so poll's work past its idle step stays a function of its own
// (startDue, operations.ts): the idle poll then pays for poll's few constants only. The
// release target keeps function names (asconfig.json, debug) for that; they are stripped here.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const wasm = fileURLToPath(new URL("../../host/library/build/tickretry.wasm", import.meta.url));
const wat = fileURLToPath(new URL("../../host/library/build/tickretry.wat", import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
const features = ["--mvp-features", "--enable-mutable-globals", "--enable-sign-ext"];
const passes = ["--no-inline=*startDue", "--always-inline-max-function-size=6", "-Oz", "--converge", "--strip-debug"];
execFileSync(bin("wasm-opt"), [...features, ...passes, wasm, "-o", wasm], { stdio: "inherit" });
execFileSync(bin("wasm-dis"), [wasm, "-o", wat], { stdio: "inherit" });
