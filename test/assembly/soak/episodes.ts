// The soak's random calls, in episodes: each starts with init and a setup and goes on for
// a few thousand steps from the same generators the property tests use. Episode e of seed
// S is a pure function of (S, e), so any episode can be regenerated alone to replay it.
import fc from "fast-check";
import { setupArb, startArb, stepArb, type ScenarioOptions } from "../harness/arbitraries.js";
import type { Step } from "../harness/calls.js";

export interface Episode {
  index: number;
  start: number;
  steps: Step[];
}

/** Episodes rotate through these: a steady clock, a clock that steps back, hostile calls too. */
const FLAVOURS: ScenarioOptions[] = [
  { backwards: false },
  { backwards: true },
  { backwards: true, hostile: true },
];

const episodeSeed = (seed: number, index: number) => (seed + Math.imul(index, 0x9e3779b9)) | 0;

export function episode(seed: number, index: number): Episode {
  const s = episodeSeed(seed, index);
  const [start, length, setup] = fc.sample(
    fc.tuple(startArb, fc.integer({ min: 200, max: 5000 }), setupArb()),
    { seed: s, numRuns: 1 },
  )[0];
  const steps = fc.sample(stepArb(FLAVOURS[index % FLAVOURS.length]), {
    seed: s ^ 0x5bd1e995,
    numRuns: length,
  });
  return { index, start, steps: [...setup, ...steps] };
}
