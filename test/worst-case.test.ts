// worstCase(policy): attempts * timeout + the sum of the backoff ceilings, bounded by the deadline.
import { describe, expect, test } from "vitest";
import { Error as Err, Jitter } from "../host/abi.js";
import { create } from "../host/tickretry.js";
import { setPolicy } from "./support/policies.js";

describe("worst case", () => {
  test("6 attempts x 3 s with ceilings 1, 2, 4, 8, 16 s is 49 s", () => {
    const api = create();
    setPolicy(api, 0); // the article's policy, in ms
    expect(api.worstCase(0)).toBe(49_000);
    // Full jitter draws below the same ceilings: its worst case is the same 49 s.
    setPolicy(api, 1, { jitter: Jitter.FULL });
    expect(api.worstCase(1)).toBe(49_000);
  });

  test("the cap holds the ceilings down and the deadline bounds the total", () => {
    const api = create();
    setPolicy(api, 0, { maxDelay: 4000 }); // ceilings 1, 2, 4, 4, 4 s
    expect(api.worstCase(0)).toBe(18_000 + 15_000);
    setPolicy(api, 1, { deadline: 30_000 });
    expect(api.worstCase(1)).toBe(30_000);
  });

  test("decorrelated jitter may triple its waits, so its ceilings grow threefold", () => {
    const api = create();
    setPolicy(api, 0, { jitter: Jitter.DECORRELATED, maxAttempts: 4 }); // 1, 3, 9 s
    expect(api.worstCase(0)).toBe(12_000 + 13_000);
  });

  test("the larger of base and throttle base sets the ceilings", () => {
    const api = create();
    setPolicy(api, 0, { maxAttempts: 3, baseDelay: 50, throttleBaseDelay: 1000 }); // 1, 2 s
    expect(api.worstCase(0)).toBe(9000 + 3000);
  });

  test("saturates at 2^31 - 1 ticks and refuses an unset policy", () => {
    const api = create();
    setPolicy(api, 0, { maxAttempts: 255, attemptTimeout: 2 ** 31 - 1 });
    expect(api.worstCase(0)).toBe(2 ** 31 - 1);
    expect(api.worstCase(5)).toBe(Err.BAD_POLICY);
    expect(api.worstCase(8)).toBe(Err.BAD_POLICY);
  });
});
