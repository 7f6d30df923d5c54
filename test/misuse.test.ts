// Every misuse docs/ABI.md names returns its documented code and leaves all state as it was.
import { describe, test } from "vitest";
import { Error as Err, Outcome } from "../host/abi.js";
import { create, instantiate } from "../host/tickretry.js";
import { setPolicy } from "./support/policies.js";
import { expectNoEffect, type Scene } from "./support/twin.js";

/** A module with a policy, one operation in flight, one waiting, one ended. */
function busy(): Scene {
  const api = create(21n);
  setPolicy(api, 0, { jitter: 0, deadline: 40_000 });
  api.setBudget(10_000, 5000, 1000, 2000, 0, 100, 100, 100, 0);
  const inFlight = api.begin(0, 100);
  const waiting = api.begin(0, 100);
  const ended = api.begin(0, 100);
  api.poll(100);
  api.poll(100);
  api.report(waiting, 1, Outcome.TRANSIENT, 0, 150);
  api.poll(100);
  api.report(ended, 1, Outcome.SUCCESS, 0, 160);
  return { api, handles: [inFlight, waiting, ended], now: 200 };
}

/** A module that has not been initialised. */
function fresh(): Scene {
  return { api: instantiate(), handles: [16, 17], now: 0 };
}

const SPAN = 2 ** 31;
const cases: [string, () => Scene, (s: Scene) => number, number][] = [
  ["begin before init", fresh, ({ api }) => api.begin(0, 5), Err.NOT_INITIALIZED],
  ["poll before init", fresh, ({ api }) => api.poll(5), Err.NOT_INITIALIZED],
  [
    "setPolicy before init",
    fresh,
    ({ api }) => api.setPolicy(0, 3, 100, 10, 100, 10, 0, 0),
    Err.NOT_INITIALIZED,
  ],
  [
    "setBudget before init",
    fresh,
    ({ api }) => api.setBudget(10, 10, 1, 1, 0, 0, 0, 0, 0),
    Err.NOT_INITIALIZED,
  ],
  ["report with a handle never issued", busy, ({ api }) => api.report(12345, 1, 1, 0, 300), Err.BAD_HANDLE],
  ["report with a negative handle", busy, ({ api }) => api.report(-1, 1, 1, 0, 300), Err.BAD_HANDLE],
  [
    "cancel with a slot's wrong generation",
    busy,
    ({ api, handles }) => api.cancel(handles[0] + 16, 300),
    Err.BAD_HANDLE,
  ],
  ["release of a released handle", busy, ({ api }) => api.release(16 * 99), Err.BAD_HANDLE],
  ["state of a bad handle", busy, ({ api }) => api.state(7), Err.BAD_HANDLE],
  ["setPolicy with id 8", busy, ({ api }) => api.setPolicy(8, 3, 100, 10, 100, 10, 0, 0), Err.BAD_POLICY],
  ["begin with a policy never set", busy, ({ api }) => api.begin(3, 300), Err.BAD_POLICY],
  ["worstCase of policy 0xFFFFFFFF", busy, ({ api }) => api.worstCase(0xffffffff), Err.BAD_POLICY],
  [
    "setPolicy with 0 attempts",
    busy,
    ({ api }) => api.setPolicy(1, 0, 100, 10, 100, 10, 0, 0),
    Err.BAD_FIELD,
  ],
  [
    "setPolicy with 256 attempts",
    busy,
    ({ api }) => api.setPolicy(0, 256, 100, 10, 100, 10, 0, 0),
    Err.BAD_FIELD,
  ],
  ["setPolicy with timeout 0", busy, ({ api }) => api.setPolicy(0, 3, 0, 10, 100, 10, 0, 0), Err.BAD_FIELD],
  [
    "setPolicy with base above cap",
    busy,
    ({ api }) => api.setPolicy(0, 3, 100, 200, 100, 10, 0, 0),
    Err.BAD_FIELD,
  ],
  [
    "setPolicy with unknown flags",
    busy,
    ({ api }) => api.setPolicy(0, 3, 100, 10, 100, 10, 0, 8),
    Err.BAD_FIELD,
  ],
  [
    "setBudget with initial above capacity",
    busy,
    ({ api }) => api.setBudget(10, 11, 1, 1, 0, 0, 0, 0, 0),
    Err.BAD_FIELD,
  ],
  [
    "setBudget with threshold above capacity",
    busy,
    ({ api }) => api.setBudget(10, 5, 1, 1, 11, 0, 0, 0, 0),
    Err.BAD_FIELD,
  ],
  [
    "setBudget with a field of 2^31",
    busy,
    ({ api }) => api.setBudget(10, 5, SPAN, 1, 0, 0, 0, 0, 0),
    Err.BAD_FIELD,
  ],
  [
    "setBudget with unknown flags",
    busy,
    ({ api }) => api.setBudget(10, 5, 1, 1, 0, 0, 0, 0, 2),
    Err.BAD_FIELD,
  ],
  [
    "setPolicy with a timeout of 2^31",
    busy,
    ({ api }) => api.setPolicy(0, 3, SPAN, 10, 100, 10, 0, 0),
    Err.SPAN_TOO_LARGE,
  ],
  [
    "setPolicy with a deadline of 2^32-1",
    busy,
    ({ api }) => api.setPolicy(0, 3, 100, 10, 100, 10, -1, 0),
    Err.SPAN_TOO_LARGE,
  ],
  [
    "report with Retry-After 2^31",
    busy,
    ({ api, handles }) => api.report(handles[0], 1, 2, SPAN, 300),
    Err.SPAN_TOO_LARGE,
  ],
  [
    "report of outcome NONE",
    busy,
    ({ api, handles }) => api.report(handles[0], 1, Outcome.NONE, 0, 300),
    Err.BAD_OUTCOME,
  ],
  [
    "report of outcome TIMEOUT",
    busy,
    ({ api, handles }) => api.report(handles[0], 1, Outcome.TIMEOUT, 0, 300),
    Err.BAD_OUTCOME,
  ],
  [
    "report of outcome 0xFFFFFFFF",
    busy,
    ({ api, handles }) => api.report(handles[0], 1, -1, 0, 300),
    Err.BAD_OUTCOME,
  ],
  ["cancel of an ended operation", busy, ({ api, handles }) => api.cancel(handles[2], 300), Err.NOT_LIVE],
  ["release of a live operation", busy, ({ api, handles }) => api.release(handles[0]), Err.STILL_LIVE],
  ["classifyHttp(99)", busy, ({ api }) => api.classifyHttp(99, 0), Err.BAD_STATUS],
  ["classifyHttp(600)", busy, ({ api }) => api.classifyHttp(600, 1), Err.BAD_STATUS],
  ["counter 14", busy, ({ api }) => api.counter(14), Err.BAD_COUNTER],
];

describe("misuse returns its code and changes nothing", () => {
  test.each(cases)("%s", (_name, build, act, code) => expectNoEffect(build, act, code));

  test("begin on a full table", () => {
    const full = (): Scene => {
      const scene = busy();
      for (let i = 3; i < 16; i++) scene.handles.push(scene.api.begin(0, 250));
      return scene;
    };
    expectNoEffect(full, ({ api }) => api.begin(0, 300), Err.TABLE_FULL);
  });
});
