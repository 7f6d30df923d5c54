// Measures the linear memory the module's state really occupies: fill all memory with a
// canary (keeping the bytes its data segments put there, which it uses), init, drive every slot and policy through retries, timeouts and ends, save and
// restore the whole table (so the image area and restore's shadow count too), then find
// the highest byte that no longer holds the canary.
import { SimClock } from "./clock.js";
import { runOperations } from "./driver.js";
import { FaultScript } from "./faults.js";
import { readFileSync } from "node:fs";
import { instantiate, seedHalves, WASM_PATH, type TickRetryApi } from "./tickretry.js";
import { Jitter } from "./abi.js";
import { AWS_STANDARD_BUDGET, configure } from "./policy.js";

const CANARY = 0xa5;

export interface Footprint {
  /** One past the highest byte of linear memory written. */
  highestByte: number;
  /** Bytes from the lowest to the highest byte written. */
  stateBytes: number;
  /** The instance after the run, for further checks. */
  api: TickRetryApi;
}

/** Where each active data segment of a module lies in memory (offset and size). */
function dataSegments(wasm: Uint8Array): { at: number; size: number }[] {
  let i = 8;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = wasm[i++];
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (i < wasm.length) {
    const id = wasm[i++];
    const size = leb();
    if (id !== 11) {
      i += size;
      continue;
    }
    // Each segment: flags 0, i32.const offset (a small positive one), end, size, bytes.
    return Array.from({ length: leb() }, () => {
      i += 2; // flags, i32.const
      const at = leb();
      i += 1; // end
      const size = leb();
      i += size;
      return { at, size };
    });
  }
  return [];
}

/** Runs the module at full capacity (16 operations over 8 policies) and measures it. */
export function measureFootprint(): Footprint {
  const api = instantiate();
  const bytes = new Uint8Array(api.memory.buffer);
  // The module reads its data segments and the zeros between them: they stay as they are.
  const segments = dataSegments(readFileSync(WASM_PATH));
  const from = Math.min(...segments.map((s) => s.at));
  const data = bytes.slice(from, Math.max(...segments.map((s) => s.at + s.size)));
  bytes.fill(CANARY);
  if (segments.length > 0) bytes.set(data, from);
  api.init(...seedHalves(7n));
  for (let id = 0; id < 8; id++) {
    const policy = {
      maxAttempts: 4,
      attemptTimeout: 400,
      baseDelay: 50,
      maxDelay: 800,
      throttleBaseDelay: 200,
      deadline: id < 4 ? 0 : 3000,
      jitter: (id % 4) as Jitter, // every jitter mode
      idempotent: id % 2 === 1,
    };
    configure(api, "footprint", id, policy, id === 7 ? AWS_STANDARD_BUDGET : undefined);
  }
  // Fill the table with live operations spread over all policies, then run them out.
  const fates = ["HANG", "THROTTLED@10+RA300", "AMBIGUOUS@30", "TRANSIENT@20", "SUCCESS@5"];
  const operations = Array.from({ length: 16 }, (_, i) => ({
    policy: i % 8,
    script: new FaultScript(fates.slice(i % 3)),
  }));
  const clock = new SimClock(0xffff_f000);
  const full = Array.from({ length: 16 }, (_, i) => api.begin(i % 8, clock.now));
  const length = api.save(clock.now);
  if (api.restore(length, clock.now, 0, 0) !== 0) throw new Error("footprint: restore refused its own image");
  for (const h of full) {
    api.cancel(h, clock.now);
    api.release(h);
  }
  runOperations(api, clock, { operations });
  let lowest = bytes.findIndex((b) => b !== CANARY);
  let highest = bytes.length;
  while (highest > 0 && bytes[highest - 1] === CANARY) highest--;
  if (lowest < 0) lowest = highest;
  return { highestByte: highest, stateBytes: highest - lowest, api };
}
