// The state block (docs/ABI.md, State block): stateBytes() bytes at stateAddress() are one
// device's whole state. Copied into another instance of the same module, whatever that
// instance held, they make it answer every later call exactly as the first would have.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { EXPORTS, Field, Image, Limit } from "../../host/library/src/generated/abi.js";
import { create, instantiate, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { scenarioArb, startArb } from "./harness/arbitraries.js";
import { EXPORT_NAMES, invoke } from "./harness/calls.js";
import { runs } from "./harness/runs.js";
import { runTrace } from "./harness/trace.js";
import { busyScene } from "../helpers/scene.js";

const RUNS = runs(60);

const blockOf = (api: TickRetryApi) =>
  new Uint8Array(api.memory.buffer, api.stateAddress(), api.stateBytes()).slice();

/** Slot s's words, where docs/ABI.md (State block) puts them: the block's end is the table's. */
function slotWords(api: TickRetryApi, s: number): number[] {
  const at = api.stateAddress() + api.stateBytes() - (Limit.OPERATIONS - s) * Field.COUNT * 4;
  return [...new Uint32Array(api.memory.buffer, at, Field.COUNT)];
}

/** Whether the slots of generation 0 are the last ones, and all zeros. */
function usedSlotsFirst(api: TickRetryApi): boolean {
  const slots = Array.from({ length: Limit.OPERATIONS }, (_, s) => slotWords(api, s));
  const unused = slots.findIndex((words) => words[Field.GENERATION] === 0);
  return unused < 0 || slots.slice(unused).every((words) => words.every((w) => w === 0));
}

function copyBlock(from: TickRetryApi, to: TickRetryApi): void {
  new Uint8Array(to.memory.buffer, to.stateAddress(), to.stateBytes()).set(blockOf(from));
}

/**
 * An instance that before every `every`-th call (from call `phase` on) copies the block of
 * the instance it runs on into the other of `pair` and runs there from then on.
 */
function swapping(
  pair: [TickRetryApi, TickRetryApi],
  every: number,
  phase: number,
): TickRetryApi & { readonly current: TickRetryApi } {
  let current = 0;
  let calls = phase;
  const target: Record<string, unknown> = {};
  for (const fn of EXPORT_NAMES) {
    target[fn] = (...args: number[]) => {
      if (++calls % every === 0) {
        copyBlock(pair[current], pair[1 - current]);
        current = 1 - current;
      }
      return invoke(pair[current], fn, args);
    };
  }
  Object.defineProperty(target, "memory", { get: () => pair[current].memory });
  Object.defineProperty(target, "current", { get: () => pair[current] });
  return target as unknown as TickRetryApi & { readonly current: TickRetryApi };
}

describe("the state block", () => {
  test("lies within MEMORY_LIMIT, clear of the image area, at the same place in every instance", () => {
    const api = busyScene().api;
    const [at, bytes] = [api.stateAddress(), api.stateBytes()];
    expect(at % 4).toBe(0);
    expect(at + bytes).toBeLessThanOrEqual(Limit.MEMORY_LIMIT);
    const image = api.imageAddress();
    expect(at + bytes <= image || image + Image.AREA_BYTES <= at).toBe(true);
    const fresh = instantiate();
    expect([fresh.stateAddress(), fresh.stateBytes()]).toEqual([at, bytes]);
    expect(EXPORTS.stateAddress.params).toEqual([]);
  });

  test("is all zeros in a fresh instance, and init writes it", () => {
    const fresh = instantiate();
    expect(blockOf(fresh).every((b) => b === 0)).toBe(true);
    expect(blockOf(create(7n)).some((b) => b !== 0)).toBe(true);
  });

  test("holds what no image does: a copy carries the clock, init and changes() over", () => {
    const scene = busyScene();
    const other = instantiate();
    copyBlock(scene.api, other);
    expect(other.changes()).toBe(scene.api.changes());
    expect(other.nextDue(scene.now)).toBe(scene.api.nextDue(scene.now));
    expect(other.poll(scene.now)).toBe(scene.api.poll(scene.now));
    expect(blockOf(other)).toEqual(blockOf(scene.api));
  });

  test("ends with the operation table, each slot's words its operation's field values", () => {
    const { api, handles } = busyScene();
    const held = handles.filter((h) => api.slot(h) >= 0);
    expect(held.length).toBeGreaterThan(3);
    for (const h of held) {
      const fields = Array.from({ length: Field.COUNT }, (_, f) => api.field(h, f) >>> 0);
      expect(slotWords(api, api.slot(h))).toEqual(fields);
    }
  });

  test.prop([scenarioArb({ restores: false }), startArb], RUNS)(
    "holds the slots a device has used first, each of generation 1 or more, and zeros after them",
    (steps, start) => {
      const api = instantiate();
      let checked = 0;
      const observe = () => {
        expect(usedSlotsFirst(api)).toBe(true);
        checked++;
      };
      runTrace(steps, start, { api, observe });
      expect(checked).toBe(steps.filter((s) => !("tick" in s)).length);
    },
  );

  test.prop(
    [
      scenarioArb({ restores: false }),
      scenarioArb({ restores: false }),
      startArb,
      fc.integer({ min: 1, max: 5 }),
      fc.nat(4),
    ],
    RUNS,
  )(
    "copied between instances at arbitrary calls, it gives every result and observation one instance gives",
    (steps, otherSteps, start, every, phase) => {
      const one = instantiate();
      const alone = runTrace(steps, start, { api: one });
      // The second instance first runs another device, so nothing of it may leak in.
      const other = instantiate();
      runTrace(otherSteps, start ^ 0x5a5a5a5a, { api: other });
      const pair: [TickRetryApi, TickRetryApi] = [instantiate(), other];
      const swapped = swapping(pair, every, phase);
      const trace = runTrace(steps, start, { api: swapped });
      expect(trace).toEqual(alone);
      expect(blockOf(swapped.current)).toEqual(blockOf(one));
    },
  );
});
