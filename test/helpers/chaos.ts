// What every chaos run must show, whatever its transport.
import { expect } from "vitest";
import type { ChaosResult } from "../../host/tools/src/chaos/run.js";

/** No problem found, no reading lost or stored twice, every reading begun delivered or ended
 * with another reason, and some delivered (a run that delivers nothing proves nothing). */
export function expectAccounted(result: ChaosResult): void {
  const t = result.tally;
  expect(result.problems).toEqual([]);
  expect(t.lost).toBe(0);
  expect(t.duplicates).toBe(0);
  expect(t.began).toBe(t.delivered + t.endedOther);
  expect(t.delivered).toBeGreaterThan(0);
}
