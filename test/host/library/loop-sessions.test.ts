// The main loop's session events (host/library/src/loop.ts; tickretry_loop.c is its C twin,
// compared with it by test/boards/native.test.ts): a SUCCESS that makes a session UP is an
// "up" event right after its report; the connections the HAL lost are dropped after the
// reports, and the link's return is told after the drops, all before the pass polls.
import { expect, test } from "vitest";
import {
  Error as TickRetryError,
  Loop,
  Outcome,
  Result,
  State,
  configure,
  create,
  type AttemptAnswer,
  type LoopEvent,
} from "tickretry";
import { RECONNECT } from "../../helpers/policies.js";

/** A loop over a fresh module with policy 0 a session and policy 1 a request; the HAL's
 * answers, drops and link-ups are whatever the test queues before a pass. */
function rig() {
  const api = create(9n);
  configure(api, "session", 0, RECONNECT);
  configure(api, "request", 1, { ...RECONNECT, maxAttempts: 3, session: false });
  const world = {
    now: 0,
    answers: [] as AttemptAnswer[],
    drops: [] as number[],
    linkUp: false,
    events: [] as LoopEvent[],
  };
  const loop = new Loop(api, {
    ticks: () => world.now,
    collect: () => world.answers.shift(),
    dropped: () => world.drops.shift(),
    linkUp: () => {
      const up = world.linkUp;
      world.linkUp = false;
      return up;
    },
    startAttempt: () => {},
    onEvent: (e) => world.events.push(e),
  });
  /** One pass at `now`: the kinds of its events, in order. */
  const pass = (now: number): string[] => {
    world.now = now;
    world.events.length = 0;
    loop.pass();
    expect(loop.fault).toBe(0);
    return world.events.map((e) => e.kind);
  };
  const succeed = (handle: number) =>
    world.answers.push({ handle, attempt: api.attempt(handle), outcome: Outcome.SUCCESS, retryAfter: 0 });
  return { api, loop, world, pass, succeed };
}

test("a SUCCESS that makes a session UP is an up event after its report; a request's is not", () => {
  const { api, loop, world, pass, succeed } = rig();
  const session = loop.begin(0, 0);
  const request = loop.begin(1, 0);
  expect(pass(0)).toEqual(["start", "start"]);
  succeed(session);
  succeed(request);
  expect(pass(100)).toEqual(["report", "up", "report", "end"]);
  expect(world.events[1]).toEqual({
    kind: "up",
    t: 100,
    handle: session,
    attempt: 1,
    operationId: api.operationId(session),
  });
  expect(api.state(session)).toBe(State.UP);
});

test("one pass reports, then drops, then tells the link's return, which kicks the dropped session at once", () => {
  const { loop, world, pass, succeed } = rig();
  const session = loop.begin(0, 0);
  pass(0);
  succeed(session); // the connect answered ...
  world.drops.push(session); // ... and the connection was lost since ...
  world.linkUp = true; // ... and the link came back
  expect(pass(100)).toEqual(["report", "up", "drop", "link-up", "start"]);
  expect(world.events[2]).toEqual({ kind: "drop", t: 100, handle: session, result: Result.OK });
  expect(world.events[3]).toEqual({ kind: "link-up", t: 100, result: Result.OK });
  expect(world.events[4]).toMatchObject({ kind: "start", handle: session, attempt: 2 });
});

test("without the link's return, a dropped session waits out its backoff", () => {
  const { api, loop, world, pass, succeed } = rig();
  const session = loop.begin(0, 0);
  pass(0);
  succeed(session);
  world.drops.push(session);
  expect(pass(100)).toEqual(["report", "up", "drop"]);
  expect(api.state(session)).toBe(State.WAITING);
  expect(api.nextAttemptAt(session)).toBe(100 + RECONNECT.baseDelay);
  expect(pass(100 + RECONNECT.baseDelay)).toEqual(["start"]);
});

test("a drop of a session that is not UP is told with NOT_UP and changes nothing", () => {
  const { api, loop, world, pass } = rig();
  const session = loop.begin(0, 0);
  pass(0); // its connect attempt is out
  world.drops.push(session);
  const before = { state: api.state(session), attempt: api.attempt(session), changes: api.changes() };
  expect(pass(10)).toEqual(["drop"]);
  expect(world.events[0]).toMatchObject({ kind: "drop", result: TickRetryError.NOT_UP });
  expect({ state: api.state(session), attempt: api.attempt(session), changes: api.changes() }).toEqual(
    before,
  );
});
