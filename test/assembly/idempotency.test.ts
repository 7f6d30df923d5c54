// AMBIGUOUS outcomes and timeouts retry only under an idempotent policy; the operation id,
// the idempotency key, stays the same on every attempt and differs between operations.
import { describe, expect, test } from "vitest";
import { EndReason, Outcome, State } from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { inFlight, setPolicy } from "../helpers/policies.js";

describe("idempotency", () => {
  test("a non-idempotent AMBIGUOUS ends AMBIGUOUS", () => {
    const { api, h } = inFlight(5n, { idempotent: false });
    api.report(h, 1, Outcome.AMBIGUOUS, 0, 10);
    expect(api.state(h)).toBe(State.DONE);
    expect(api.endReason(h)).toBe(EndReason.AMBIGUOUS);
    expect(api.attempt(h)).toBe(1);
  });

  test("a non-idempotent attempt that times out ends AMBIGUOUS: it may have executed", () => {
    const { api, h } = inFlight(5n, { idempotent: false, attemptTimeout: 100 });
    api.poll(100);
    expect(api.lastOutcome(h)).toBe(Outcome.TIMEOUT);
    expect(api.endReason(h)).toBe(EndReason.AMBIGUOUS);
  });

  test("an idempotent AMBIGUOUS retries with the same operation id", () => {
    const api = create(5n);
    setPolicy(api, 0, { idempotent: true, jitter: 1 });
    const h = api.begin(0, 0);
    const id = api.operationId(h);
    expect(api.poll(0)).toBe(h);
    api.report(h, 1, Outcome.AMBIGUOUS, 0, 10);
    expect(api.state(h)).toBe(State.WAITING);
    expect(api.poll(1010)).toBe(h);
    expect(api.attempt(h)).toBe(2);
    expect(api.operationId(h)).toBe(id);
  });

  test("operation ids differ between operations and between seeds", () => {
    const api = create(5n);
    setPolicy(api, 0);
    const ids = new Set<number>();
    for (let i = 0; i < 100; i++) {
      const h = api.begin(0, i);
      ids.add(api.operationId(h));
      api.cancel(h, i);
      api.release(h);
    }
    expect(ids.size).toBe(100);
    const other = create(6n);
    setPolicy(other, 0);
    expect(ids.has(other.operationId(other.begin(0, 0)))).toBe(false);
  });

  test("PERMANENT ends at once, idempotent or not", () => {
    const { api, h } = inFlight(5n, { idempotent: true });
    api.report(h, 1, Outcome.PERMANENT, 0, 10);
    expect(api.endReason(h)).toBe(EndReason.PERMANENT);
  });
});
