// The virtual-time driver runs sessions (host/library/src/driver.ts): scripted lost
// connections and link-ups reach the loop at the first pass from their tick on, the trace
// has a line for each session event, and a drop that names no operation is refused before
// anything is begun.
import { expect, test } from "vitest";
import { Counter, FaultScript, SimClock, configure, create, formatEvent, runOperations } from "tickretry";
import { RECONNECT } from "../../helpers/policies.js";

function session() {
  const api = create(4n);
  configure(api, "session", 0, RECONNECT);
  return api;
}

test("a lost connection and the link's return reach the loop at their tick, each a trace line", () => {
  const trace = runOperations(session(), new SimClock(1000), {
    operations: [{ policy: 0, script: new FaultScript(["SUCCESS@100", "SUCCESS@100", "PERMANENT@10"]) }],
    drops: [
      { at: 1500, operation: 0 },
      { at: 2000, operation: 0 },
    ],
    linkUps: [1600],
  });
  expect(trace.map(formatEvent)).toEqual([
    "1000 start h=16 a=1",
    "1100 report h=16 a=1 SUCCESS -> OK",
    "1100 up h=16 a=1",
    "1500 drop h=16 -> OK", // the backoff would wait until 2500 ...
    "1600 link-up -> OK", // ... but the link's return kicks it
    "1600 start h=16 a=2",
    "1700 report h=16 a=2 SUCCESS -> OK",
    "1700 up h=16 a=2",
    "2000 drop h=16 -> OK",
    "3000 start h=16 a=3",
    "3010 report h=16 a=3 PERMANENT -> OK",
    "3010 end h=16 PERMANENT after 3",
  ]);
});

test("a drop that names no operation is refused, and nothing is begun", () => {
  const api = session();
  expect(() =>
    runOperations(api, new SimClock(0), {
      operations: [{ policy: 0, script: new FaultScript(["SUCCESS@1"]) }],
      drops: [{ at: 5, operation: 1 }],
    }),
  ).toThrow("a drop names operation 1; there are operations 0 to 0");
  expect(api.counter(Counter.BEGUN)).toBe(0);
});
