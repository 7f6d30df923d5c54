// FreeRTOS backoffAlgorithm, from its unit tests (FreeRTOS/backoffAlgorithm,
// backoffAlgorithm/test/unit-test/backoff_algorithm_utest.c @ 12378255): base 1000, max backoff 10000, 5
// retries. backoffAlgorithm takes its random number from the caller and returns
// `random % (nextJitterMax + 1)`; the module draws its own and maps it by multiply-shift. Its
// maxRetryAttempts counts retries, the module's maxAttempts the first attempt too.
import { describe, expect, test } from "vitest";
import { EndReason, Outcome } from "../../host/library/src/generated/abi.js";
import { Prng } from "../assembly/model/prng.js";
import { create } from "../../host/library/src/tickretry.js";
import { configured, peerPolicy, runOperation } from "./peer-run.js";

const BASE = 1000;
const MAX = 10_000;
const RETRIES = 5;
const fullJitter = (maxAttempts: number) =>
  peerPolicy({ maxAttempts, baseDelay: BASE, maxDelay: MAX, jitter: "FULL" });
const failing = (n: number) => Array(n).fill(Outcome.TRANSIENT);

describe("backoffAlgorithm test/unit-test/backoff_algorithm_utest.c", () => {
  test("GetNextBackoff_Success_RandVal_Less_Than_Jitter_Max: the first window is [0, base], the next doubles", () => {
    for (let seed = 1n; seed <= 50n; seed++) {
      const { waits } = runOperation(configured(fullJitter(3), undefined, create(seed)), failing(3));
      expect(waits[0]).toBeLessThanOrEqual(BASE);
      expect(waits[1]).toBeLessThanOrEqual(2 * BASE);
    }
  });

  test("GetNextBackoff_Success_RandVal_More_Than_Jitter_Max: the same random value maps to another wait (documented)", () => {
    // The module's first draw after init (which takes one number for the operation ids) is the
    // PRNG's second output r: backoffAlgorithm would wait r % 1001, the module floor(r * 1001 / 2^32).
    const prng = new Prng();
    prng.seed(9, 0);
    prng.next();
    const r = prng.next();
    const wait = runOperation(configured(fullJitter(2), undefined, create(9n)), failing(2)).waits[0];
    expect(wait).toBe(Math.floor((r * (BASE + 1)) / 2 ** 32));
    expect(wait).not.toBe(r % (BASE + 1));
  });

  test("GetNextBackoff_Attempts_Exhausted: 5 retries, counted differently (documented)", () => {
    // backoffAlgorithm's maxRetryAttempts 5 is the module's maxAttempts 6 (the first counts).
    const five = runOperation(configured(fullJitter(RETRIES + 1)), failing(10));
    expect([five.waits.length, five.endReason]).toEqual([RETRIES, EndReason.EXHAUSTED]);
    const four = runOperation(configured(fullJitter(RETRIES)), failing(10));
    expect(four.waits.length).toBe(RETRIES - 1);
  });

  test("GetNextBackoff_Returns_Cap_Backoff: windows stop growing at the max backoff", () => {
    const waits = runOperation(
      configured(peerPolicy({ maxAttempts: 8, baseDelay: BASE, maxDelay: MAX })),
      failing(8),
    ).waits;
    // Jitter NONE waits the window's top: 1000, 2000, 4000, 8000, then the cap.
    expect(waits).toEqual([1000, 2000, 4000, 8000, MAX, MAX, MAX]);
  });

  test("GetNextBackoff_NextJitterMax_Below_Cap_Backoff: RETRY_FOREVER (maxAttempts 0) keeps retrying", () => {
    const run = runOperation(configured(fullJitter(0)), failing(300));
    expect(run.waits).toHaveLength(300);
    expect(Math.max(...run.waits)).toBeLessThanOrEqual(MAX);
  });
});
