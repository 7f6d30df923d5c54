// Edges random scenarios reach too rarely: a slot's generation wrapping from 65535 to 1,
// and operation ids wrapping from 2^31 - 1 to 0. Module and model run in lockstep.
import { expect, test } from "vitest";
import { Limit } from "../../host/library/src/generated/abi.js";
import { NOW, v, type Step } from "./harness/calls.js";
import { Lockstep } from "./harness/lockstep.js";
import { Prng } from "./model/prng.js";

const setup: Step[] = [
  { fn: "init", args: [v(3), v(0)] },
  { fn: "setPolicy", args: [0, 2, 100, 10, 100, 0, 0, 4].map(v) },
];
/** Begins an operation, cancels and releases it: the slot's generation moves on by one. */
const cycle: Step[] = [
  { fn: "begin", args: [v(0), NOW] },
  { fn: "cancel", args: [{ h: 0 }, NOW] },
  { fn: "release", args: [{ h: 0 }] },
  { tick: 7 },
];

// expect() only on a divergence: 200,000 passing expect() calls cost more than the lockstep.
function run(run: Lockstep, steps: Step[]): void {
  for (const s of steps) {
    const differences = run.step(s);
    if (differences.length > 0) expect(differences).toEqual([]);
  }
}

// 65,535 cycles in lockstep: about 20 s on an idle machine, more beside other test files.
test("a slot's generation wraps from 65535 to 1", { timeout: 120_000 }, () => {
  const r = new Lockstep({ start: 0xffff_0000, snapshotEvery: 101 });
  run(r, setup);
  for (let i = 0; i < 0xffff; i++) run(r, cycle);
  expect(r.host.handles.at(-1)).toBe((0xffff << Limit.SLOT_BITS) | 0);
  run(r, cycle.slice(0, 1));
  expect(r.host.handles.at(-1)).toBe((1 << Limit.SLOT_BITS) | 0);
});

test("operation ids wrap from 2^31 - 1 to 0", { timeout: 120_000 }, () => {
  // A seed whose first id lies within 2^14 of the wrap, found with the model's PRNG.
  const prng = new Prng();
  let seed = 0;
  for (; ; seed++) {
    prng.seed(seed, 0);
    if ((prng.next() & 0x7fffffff) >= 2 ** 31 - 2 ** 14) break;
  }
  const r = new Lockstep({ snapshotEvery: 1, handleLimit: 1 });
  run(r, [{ fn: "init", args: [v(seed), v(0)] }, ...setup.slice(1)]);
  let last = -1;
  let wrapped = false;
  while (!wrapped) {
    run(r, cycle.slice(0, 1));
    const id = r.module.operationId(r.host.handles.at(-1)!);
    wrapped = id === 0 && last === 0x7fffffff;
    if (!wrapped && last >= 0) expect(id).toBe(last + 1);
    last = id;
    run(r, cycle.slice(1));
  }
});
