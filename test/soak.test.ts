// CI's soak: 200,000 random calls on the module and the model in lockstep, fixed seed.
// `npm run soak` runs the long one.
import { expect, test } from "vitest";
import { runSoak } from "./soak/run.js";

test("a 200,000-call soak finds no divergence between module and model", () => {
  const result = runSoak({ calls: 200_000, seed: 20261129 });
  expect(result.failure).toBeUndefined();
  expect(result.calls).toBe(200_000);
}, 60_000);
