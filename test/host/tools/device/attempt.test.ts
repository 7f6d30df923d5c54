// One HTTP attempt against the real upstream, classified as the device reports it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Limit, Outcome } from "../../../../host/library/src/generated/abi.js";
import {
  retryAfterMs,
  startAttempt,
  type AttemptResult,
} from "../../../../host/tools/src/device/link/http-attempt.js";
import { startUpstream, type Upstream } from "../../../../host/tools/src/upstream/server.js";
import type { ScenarioName } from "../../../../host/tools/src/upstream/scenarios.js";
import { closedPort } from "../../../helpers/device.js";

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream({ timing: { latencyMs: 1 } });
});
afterAll(() => upstream.close());

function attempt(url: string): Promise<AttemptResult> {
  return new Promise((resolve) => startAttempt({ url, operationId: 42, attempt: 1, body: "{}" }, resolve));
}

describe("an upload attempt", () => {
  it.each([
    ["healthy", Outcome.SUCCESS, 0],
    ["outage", Outcome.TRANSIENT, 0],
    ["busy", Outcome.THROTTLED, 2000],
    ["throttle", Outcome.THROTTLED, 1000],
    ["reset", Outcome.AMBIGUOUS, 0],
  ] as [ScenarioName, number, number][])(
    "meets %s: outcome %i, Retry-After %i ms",
    async (scenario, outcome, ra) => {
      upstream.setScenario(scenario);
      const r = await attempt(upstream.url);
      expect([r.outcome, r.retryAfter]).toEqual([outcome, ra]);
    },
  );

  it("sends the operation id as Idempotency-Key and the attempt number", async () => {
    upstream.setScenario("healthy");
    await attempt(upstream.url);
    expect(upstream.log().at(-1)).toMatchObject({ key: "42", attempt: "1" });
  });

  it("calls a reset after sending AMBIGUOUS and a refused connection TRANSIENT", async () => {
    upstream.setScenario("reset");
    expect((await attempt(upstream.url)).detail).toMatch(/after sending/);
    const refused = await attempt(`http://127.0.0.1:${await closedPort()}/upload`);
    expect(refused).toMatchObject({ outcome: Outcome.TRANSIENT, detail: "ECONNREFUSED before sending" });
  });

  it("gets PERMANENT for a path the upstream does not have", async () => {
    upstream.setScenario("healthy");
    const r = await attempt(upstream.url.replace("/upload", "/nope"));
    expect([r.outcome, r.detail]).toEqual([Outcome.PERMANENT, "HTTP 404"]);
  });
});

describe("Retry-After", () => {
  it("reads delta-seconds and HTTP-dates, caps at MAX_SPAN, ignores junk", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("3", now)).toBe(3000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("99999999999", now)).toBe(Limit.MAX_SPAN);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs("-1", now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
