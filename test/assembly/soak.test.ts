// CI's soak: 200,000 random calls on the module and the model in lockstep, fixed seed
// (`npm run soak` runs the long one); and the soak's failure path, against a reference
// that is wrong on purpose.
import { expect, test } from "vitest";
import { Counter } from "../../host/library/src/generated/abi.js";
import { SchedulerModel } from "./model/scheduler.js";
import { runSoak } from "./soak/run.js";
import { shrink } from "./soak/shrink.js";

test("a 200,000-call soak finds no divergence between module and model", () => {
  const result = runSoak({ calls: 200_000, seed: 20261129 });
  expect(result.failure).toBeUndefined();
  expect(result.calls).toBe(200_000);
  // It exercised the machine, not just refusals.
  for (const c of [Counter.RETRIES_SCHEDULED, Counter.ENDED_SUCCEEDED, Counter.CLOCK_FAULTS]) {
    expect(result.counters[c]).toBeGreaterThan(100);
  }
  // And saved, restored (fresh and in place, attempts lost or not), refused images, handed out ends.
  for (const n of Object.values(result.images)) expect(n).toBeGreaterThan(100);
}, 150_000);

/** A model that miscounts retries once two have been scheduled. */
class MiscountingModel extends SchedulerModel {
  counter(id: number): number {
    const value = super.counter(id);
    return id === Counter.RETRIES_SCHEDULED && value >= 2 ? value + 1 : value;
  }
}

test("a divergence stops the soak with a short counterexample that still diverges", () => {
  const result = runSoak({ calls: 200_000, seed: 1, reference: () => new MiscountingModel() });
  const f = result.failure!;
  expect(f).toBeDefined();
  expect(result.calls).toBeLessThan(200_000);
  expect(f.reproducedAlone).toBe(true);
  // The first divergence: RETRIES_SCHEDULED read one high (from 2 on, or from an image's count).
  expect(f.differences.join("\n")).toMatch(
    new RegExp(`counter\\(${Counter.RETRIES_SCHEDULED}\\): (\\d+) vs \\d+`),
  );
  expect(f.steps[0]).toMatch(/^init\(/);
  expect(f.steps.length).toBeLessThan(25);
});

test("shrinking keeps the steps a failure needs and drops the rest", () => {
  const steps = Array.from({ length: 1000 }, (_, i) => i);
  const fails = (s: readonly number[]) => (s.includes(17) && s.includes(423) ? s.indexOf(423) : undefined);
  expect(shrink(steps, fails, 1)).toEqual([0, 17, 423]);
});
