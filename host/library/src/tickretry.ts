// The typed wrapper over host/library/build/tickretry.wasm: the one place that loads the binary and
// the one place that turns V8's signed i32 results of u32 exports back into u32.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { EXPORTS, bindExports, type TickRetryApi } from "./generated/abi.js";

export type { TickRetryApi } from "./generated/abi.js";

/** The release binary: the file the tests load and the firmware embeds. */
export const WASM_PATH = fileURLToPath(new URL("../build/tickretry.wasm", import.meta.url));

type Fn = (...args: number[]) => number;

let compiled: WebAssembly.Module | undefined;

/** fn with its i32 result read as u32; exports of no or one argument (all of them today)
 * skip the rest-array and spread that a general wrapper would cost on every call. */
function unsigned(fn: Fn, arity: number): Fn {
  if (arity === 0) return () => fn() >>> 0;
  return arity === 1 ? (a: number) => fn(a) >>> 0 : (...args: number[]) => fn(...args) >>> 0;
}

/**
 * Compiles the package's build/tickretry.wasm once per process.
 * @example
 * ```ts
 * const api = instantiate(compileModule()); // the module compiled once, an instance each call
 * ```
 */
export function compileModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(readFileSync(WASM_PATH));
  return compiled;
}

/**
 * A fresh instance (its own memory and state), with every export checked against the ABI,
 * not yet initialised: call `init`, or `restore` an image into it ({@link restoreImage}).
 * `module` defaults to {@link compileModule}'s, compiled once per process.
 * @example
 * ```ts
 * const api = instantiate(); api.restore(length, now, elapsed, 0); // after copying an image to api.imageAddress()
 * ```
 */
export function instantiate(module: WebAssembly.Module = compileModule()): TickRetryApi {
  const raw = new WebAssembly.Instance(module, {}).exports;
  for (const [name, spec] of Object.entries(EXPORTS)) {
    const fn = raw[name];
    if (typeof fn !== "function" || fn.length !== spec.params.length) {
      throw new Error(
        `host/library/build/tickretry.wasm: export ${name}(${spec.params.join(", ")}) missing or mismatched`,
      );
    }
  }
  return bindExports(raw, unsigned);
}

/**
 * Splits a 64-bit seed into the (seedLo, seedHi) pair init takes.
 * @example
 * ```ts
 * api.init(...seedHalves(0x0123_4567_89ab_cdefn)); // seedLo 0x89abcdef, seedHi 0x01234567
 * ```
 */
export function seedHalves(seed: bigint): [number, number] {
  const s = BigInt.asUintN(64, seed);
  return [Number(s & 0xffff_ffffn), Number(s >> 32n)];
}

/**
 * A fresh instance, initialised with `seed` (default 1n): ready for setPolicy and begin.
 * Before a restore, use {@link instantiate}: a restore replaces the whole state anyway.
 * @example
 * ```ts
 * const api = create(42n); api.setPolicy(0, ...policyArgs(policy)); const h = api.begin(0, 0);
 * ```
 */
export function create(seed: bigint = 1n): TickRetryApi {
  const api = instantiate();
  api.init(...seedHalves(seed));
  return api;
}
