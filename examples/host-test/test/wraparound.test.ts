// Retry behaviour across the 32-bit tick wrap, tested the way a firmware team would test
// its own policy on a PC: the real module, a simulated clock and scripted faults, all
// through tickretry's public API.
import { expect, test } from "vitest";
import {
  Counter,
  EndReason,
  FaultScript,
  SimClock,
  configure,
  create,
  endReasonName,
  formatEvent,
  runOperations,
  type TraceEvent,
} from "tickretry";

test("an upload begun just before the wrap times out in a stall, then succeeds after the wrap", () => {
  const api = create(42n);
  configure(api, "upload", 0, {
    maxAttempts: 4,
    attemptTimeout: 1000,
    baseDelay: 200,
    maxDelay: 2000,
    throttleBaseDelay: 0,
    deadline: 60_000,
    jitter: "NONE",
    idempotent: true,
  });
  const clock = new SimClock(0xffff_fe00); // 512 ticks before the counter wraps
  const begun = clock.now;

  // The first attempt never answers; the loop then blocks for 5000 ticks, far past that
  // attempt's 1000-tick timeout and across the wrap. The stall costs one timeout, noticed
  // when the loop runs again; the retry waits its 200-tick backoff (no jitter) from then,
  // and answers in 30.
  const trace = runOperations(api, clock, {
    operations: [{ policy: 0, script: new FaultScript(["HANG", "SUCCESS@30"]) }],
    beforeStep: (c, step) => {
      if (step === 1) c.stall(5000);
    },
  });

  const starts = trace.filter((e) => e.kind === "start");
  const end = trace.find((e): e is Extract<TraceEvent, { kind: "end" }> => e.kind === "end");
  expect(clock.wraps).toBe(1);
  expect(starts.map((e) => e.t)).toEqual([begun, (begun + 1000 + 5000 + 200) >>> 0]); // one retry, not a burst
  expect(starts[1].t).toBeLessThan(begun); // the retry started after the wrap
  expect(end && endReasonName(end.reason)).toBe("SUCCEEDED");
  expect(end?.reason).toBe(EndReason.SUCCEEDED);
  expect(end?.attempts).toBe(2);
  expect(api.counter(Counter.ATTEMPT_TIMEOUTS)).toBe(1);
  expect(trace.map(formatEvent).at(-1)).toMatch(/ end h=\d+ SUCCEEDED after 2$/);
});
