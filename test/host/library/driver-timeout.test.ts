// The driver's trace has a line for each attempt the module timed out, at the pass that
// notices it, before any late answer to it (which is then STALE_REPORT); an answer in time
// or an attempt lost in a reboot gets none. The C loop prints the same line
// (boards/tickretry/tickretry_loop.c; test/boards/native.test.ts compares the traces).
import { expect, test } from "vitest";
import {
  FaultScript,
  RestoreFlag,
  SimClock,
  configure,
  create,
  formatEvent,
  instantiate,
  restoreImage,
  runOperations,
  saveImage,
  type PolicyFields,
} from "tickretry";

const policy: PolicyFields = {
  maxAttempts: 3,
  attemptTimeout: 1000,
  baseDelay: 100,
  maxDelay: 100,
  throttleBaseDelay: 0,
  deadline: 0,
  jitter: "NONE",
  idempotent: true,
};

function trace(fates: string[], restartAt?: number): string[] {
  const api = create(5n);
  configure(api, "test", 0, policy);
  return runOperations(api, new SimClock(0), {
    operations: [{ policy: 0, script: new FaultScript(fates) }],
    restart: (old, clock, step) => {
      if (step !== restartAt) return undefined;
      const image = saveImage(old, clock.now) as Uint8Array;
      const fresh = instantiate();
      expect(restoreImage(fresh, image, clock.now, 0, RestoreFlag.ATTEMPTS_LOST)).toBe(0);
      return { api: fresh, attemptsLost: true, note: "reboot" };
    },
  }).map(formatEvent);
}

test("a hung attempt gets a timeout line at its deadline, then the retry starts", () => {
  const lines = trace(["HANG", "SUCCESS@10"]);
  expect(lines.slice(0, 3).map((l) => l.replace(/h=\d+/, "h"))).toEqual([
    "0 start h a=1",
    "1000 timeout h a=1",
    "1100 start h a=2",
  ]);
});

test("an answer after the deadline follows the timeout line and is stale", () => {
  const lines = trace(["SUCCESS@1500", "HANG", "SUCCESS@10"]); // a1 answers while a2 is out
  const timeout = lines.findIndex((l) => / timeout h=\d+ a=1$/.test(l));
  const stale = lines.findIndex((l) => l.endsWith("SUCCESS -> STALE_REPORT"));
  expect(timeout).toBeGreaterThan(0);
  expect(stale).toBeGreaterThan(timeout);
});

test("an answer in time, or an attempt lost in a reboot, gets no timeout line", () => {
  expect(trace(["SUCCESS@999"]).filter((l) => l.includes(" timeout "))).toEqual([]);
  const rebooted = trace(["SUCCESS@500", "SUCCESS@10"], 1); // step 1: at 500, a1 still out
  expect(rebooted.some((l) => l.endsWith(" reboot"))).toBe(true);
  expect(rebooted.filter((l) => l.includes(" timeout "))).toEqual([]);
});

test("every event of an operation carries its operation id, as the module gave it, in the trace", () => {
  const api = create(9n);
  configure(api, "test", 0, policy);
  const ids = new Map<number, number>(); // handle -> the module's operationId, read at start
  const events = runOperations(api, new SimClock(0), {
    operations: [
      { policy: 0, script: new FaultScript(["SUCCESS@1500", "HANG", "SUCCESS@10"]) },
      { policy: 0, script: new FaultScript(["TRANSIENT@20", "SUCCESS@20"]) },
    ],
    beforeStep: () => {
      for (let h = 16; h < 16 + 64; h++) if (api.operationId(h) > 0) ids.set(h, api.operationId(h));
    },
  });
  const kinds = new Set(events.map((e) => e.kind));
  expect([...kinds].sort()).toEqual(["end", "report", "start", "timeout"]);
  const ofOperation = events.filter((e) => "operationId" in e);
  expect(ofOperation).toHaveLength(events.length);
  for (const e of ofOperation) expect(e.operationId, formatEvent(e)).toBe(ids.get(e.handle));
  expect(new Set(ofOperation.map((e) => e.operationId)).size).toBe(2);
});
