// One Loop serving several rows of a LoopTable in turn (Loop.moveTo, as the fleet simulator
// runs a million devices) gives every row exactly the events and results a Loop of its own
// would: nothing of a row's loop lives outside its record.
import { expect, test } from "vitest";
import {
  Loop,
  LoopTable,
  Outcome,
  configure,
  create,
  type AttemptAnswer,
  type LoopEvent,
  type LoopHal,
  type TickRetryApi,
} from "tickretry";
import { RECONNECT } from "../../helpers/policies.js";

const ROWS = 3;
const PASSES = 60;

/** Row r's world: its module, the answers its HAL holds, the events its loop told. */
interface World {
  api: TickRetryApi;
  answers: AttemptAnswer[];
  events: LoopEvent[];
  results: number[];
}

function worlds(): World[] {
  return Array.from({ length: ROWS }, (_, r) => {
    const api = create(BigInt(5 + r));
    configure(api, "request", 0, {
      ...RECONNECT,
      session: false,
      maxAttempts: 3,
      attemptTimeout: 400,
      baseDelay: 300,
    });
    return { api, answers: [], events: [], results: [] };
  });
}

/** A HAL over whichever world `current()` names, at pass k's tick; answers alternate. */
function hal(current: () => World, now: () => number, loop: () => Loop): LoopHal {
  return {
    ticks: now,
    collect: () => current().answers.shift(),
    beginDue: (t) => void (t % 700 < 250 && loop().begin(0, t)),
    startAttempt: (handle, attempt, _id, t) => {
      const outcome = (t + attempt) % 3 === 0 ? Outcome.SUCCESS : Outcome.TRANSIENT;
      if (t % 5 !== 0) current().answers.push({ handle, attempt, outcome, retryAfter: 0 });
    },
    onEvent: (e) => current().events.push(e),
  };
}

test("one Loop moved between rows runs each row as a Loop of its own would", () => {
  const alone = worlds();
  let t = 0;
  const loops: Loop[] = alone.map(
    (w, r) =>
      new Loop(
        w.api,
        hal(
          () => alone[r],
          () => t,
          () => loops[r],
        ),
      ),
  );
  const shared = worlds();
  let s = 0;
  const one: Loop = new Loop(
    shared[0].api,
    hal(
      () => shared[s],
      () => t,
      () => one,
    ),
    new LoopTable(ROWS),
  );
  for (let r = 0; r < ROWS; r++) (one.moveTo(r, shared[r].api), one.clear());
  for (let k = 0; k < PASSES * ROWS; k++) {
    t = 137 * k;
    s = (k * 7) % ROWS;
    alone[s].results.push(loops[s].pass(), loops[s].live, loops[s].fault);
    one.moveTo(s, shared[s].api);
    shared[s].results.push(one.pass(), one.live, one.fault);
  }
  for (let r = 0; r < ROWS; r++) {
    expect(shared[r].events).toEqual(alone[r].events);
    expect(shared[r].results).toEqual(alone[r].results);
    one.moveTo(r, shared[r].api);
    expect(one.saveSlots()).toEqual(loops[r].saveSlots());
  }
  expect(alone.some((w) => w.events.some((e) => e.kind === "end"))).toBe(true);
});
