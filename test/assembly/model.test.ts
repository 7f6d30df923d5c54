// Model-based tests: random scenarios run on the module and on the reference model
// (test/assembly/model/, written from docs/ABI.md); every return value and every observable state
// is compared after every call.
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { formatStep } from "./harness/calls.js";
import { hostileCallArb, scenarioArb, startArb } from "./harness/arbitraries.js";
import { findDivergence } from "./harness/lockstep.js";
import { runs } from "./harness/runs.js";

const agree = (steps: Parameters<typeof findDivergence>[0], start: number) => {
  const d = findDivergence(steps, { start });
  if (d) {
    const trail = steps.slice(0, d.index + 1).map(formatStep);
    expect.fail(`diverged at step ${d.index}: ${d.step}\n${d.differences.join("\n")}\n\n${trail.join("\n")}`);
  }
};

test.prop([scenarioArb({ backwards: false }), startArb], runs(300))(
  "module and model agree on host-like use with the clock moving forward",
  (steps, start) => agree(steps, start),
);

test.prop([scenarioArb({ backwards: true }), startArb], runs(300))(
  "module and model agree when the clock steps back, within the tolerance and beyond",
  (steps, start) => agree(steps, start),
);

test.prop(
  [fc.array(hostileCallArb, { maxLength: 20 }), scenarioArb({ backwards: true, hostile: true }), startArb],
  runs(300),
)(
  "module and model agree on hostile calls with arbitrary 32-bit arguments, before init too",
  (early, steps, start) => agree([...early, ...steps], start),
);
