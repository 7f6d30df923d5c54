// Divergences of build/tickretry.wasm from docs/ABI.md that are reported and not fixed yet.
// Each is named, matched narrowly (a lockstep run still stops on anything else), counted
// where it is met (the soak prints the count), and reproduced by test/known-divergences.test.ts
// with test.fails: that test starts failing once the module is fixed; then delete the entry.
import { Error as Err, Image } from "../../host/abi.js";
import { SchedulerModel } from "../model/scheduler.js";
import type { Target } from "./calls.js";
import { readImage, writeImage } from "./images.js";

export interface KnownDivergence {
  name: string;
  /** True when a call's module result `got` (a trap as "trapped (...)") and model result `want` are this divergence. */
  matches: (fn: string, got: number | string, want: number) => boolean;
}

export const KNOWN_DIVERGENCES: KnownDivergence[] = [
  {
    // docs/ABI.md, restore: a slot's policy above POLICIES - 1 is IMAGE_FIELD, and nothing
    // traps on any byte string. The module reads every field into its shadow, marks an
    // out-of-range one refused and reads on, then checks relations on the shadow, indexing
    // the policy table by the unchecked policy field (assembly/image.ts, checkShadow).
    name: "restore traps on an image whose slot names a policy out of range, instead of IMAGE_FIELD",
    matches: (fn, got, want) =>
      fn === "restore" && typeof got === "string" && got.startsWith("trapped") && want === Err.IMAGE_FIELD,
  },
];

/** The known divergence a disagreement is, if any. */
export function knownDivergence(fn: string, got: number | string, want: number): KnownDivergence | undefined {
  return KNOWN_DIVERGENCES.find((k) => k.matches(fn, got, want));
}

/** A module call's result, or why it trapped (a divergence like any other, to be shrunk). */
export function guarded(call: () => number): number | string {
  try {
    return call();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) return `trapped (${e.message})`;
    throw e;
  }
}

/**
 * restore on the module alone, for properties run without the model beside it: a known
 * divergence answers what docs/ABI.md says instead (the model's answer for the same image
 * area and arguments: restore's answer depends on nothing else; a refused image changes
 * nothing); anything else that traps is thrown.
 */
export function restoreKnowingDivergences(api: Target, args: readonly number[]): number {
  const [length, now, elapsed, flags] = args;
  const got = guarded(() => api.restore(length, now, elapsed, flags));
  if (typeof got === "number") return got;
  const model = new SchedulerModel();
  writeImage(model, readImage(api, Image.AREA_BYTES));
  const want = model.restore(length, now, elapsed, flags);
  if (knownDivergence("restore", got, want) === undefined)
    throw new Error(`restore(${args.join(", ")}) ${got}`);
  return want;
}
