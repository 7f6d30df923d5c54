// The transition table (assembly/machine.ts obeys the packed TRANSITION_TABLE generated
// into assembly/generated/constants.ts from assembly/constants.json): every (state, event) pair, read
// from the packed value and driven through the module, against constants.json.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import abi from "../../assembly/constants.json" with { type: "json" };
import { Error as Err, Event, Outcome, Result, State } from "../../host/library/src/generated/abi.js";
import { create, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { setPolicy } from "../helpers/policies.js";

type Name<T> = keyof T & string;
const STATES = Object.keys(State) as Name<typeof State>[];
const EVENTS = Object.keys(Event) as Name<typeof Event>[];

/** The state `event` takes `state` to by constants.json, or undefined when it may not. */
function expected(state: string, event: string): string | undefined {
  return abi.transitions.find(([from, e]) => from === state && e === event)?.[2];
}

describe("the packed table in assembly/generated/constants.ts", () => {
  const source = readFileSync(new URL("../../assembly/generated/constants.ts", import.meta.url), "utf8");
  const table = BigInt(source.match(/TRANSITION_TABLE: u64 = (0x[0-9a-f]+)/)![1]);
  for (const state of STATES) {
    for (const event of EVENTS) {
      test(`${state} x ${event}`, () => {
        const entry = (table >> BigInt(Event[event] * 8)) & 0xffn;
        const allowed = ((entry >> BigInt(State[state])) & 1n) === 1n;
        const to = expected(state, event);
        expect(allowed).toBe(to !== undefined);
        if (to !== undefined) expect(Number(entry >> 5n)).toBe(State[to as Name<typeof State>]);
      });
    }
  }

  test("a comment line per event beside it", () => {
    for (const event of EVENTS)
      expect(source).toMatch(new RegExp(`// byte ${Event[event]} = 0x[0-9a-f]{2}: ${event}:`));
  });
});

/** An operation put in `state` (FREE: begun, ended and released), and its handle: a
 * session, so that every state (UP too) is reachable. */
function operationIn(state: Name<typeof State>): { api: TickRetryApi; h: number } {
  const api = create(5n);
  setPolicy(api, 0, { maxAttempts: 3, baseDelay: 0, maxDelay: 0, session: true });
  const h = api.begin(0, 10);
  if (state === "IN_FLIGHT" || state === "DONE" || state === "UP") api.poll(10);
  if (state === "UP") api.report(h, 1, Outcome.SUCCESS, 0, 10);
  if (state === "DONE" || state === "FREE") api.cancel(h, 10);
  if (state === "FREE") api.release(h);
  return { api, h };
}

/** The call that asks for `event` on the operation h (in slot 0, the only one used);
 * true when the module did it. */
const ask: Record<Name<typeof Event>, (api: TickRetryApi, h: number) => boolean> = {
  BEGIN: (api) => api.slot(api.begin(0, 10)) === 0,
  START: (api, h) => api.poll(10) === h,
  RETRY: (api, h) => api.report(h, api.attempt(h), Outcome.TRANSIENT, 0, 10) === Result.OK,
  END: (api, h) => api.cancel(h, 10) === Result.OK,
  RELEASE: (api, h) => api.release(h) === Result.OK,
  CONNECT: (api, h) => api.report(h, api.attempt(h), Outcome.SUCCESS, 0, 10) === Result.OK,
  DROP: (api, h) => api.drop(h, 10) === Result.OK,
};

describe("the module, driven through every (state, event) pair", () => {
  for (const state of STATES) {
    for (const event of EVENTS) {
      const to = expected(state, event);
      test(`${state} x ${event}: ${to ?? "refused"}`, () => {
        const { api, h } = operationIn(state);
        // FREE has no handle: BEGIN is asked of the free slot, the rest of a dead handle.
        if (state !== "FREE") expect(api.state(h)).toBe(State[state]);
        expect(ask[event](api, h)).toBe(to !== undefined);
        if (to !== undefined && state !== "FREE") {
          expect(api.state(h)).toBe(to === "FREE" ? Err.BAD_HANDLE : State[to as Name<typeof State>]);
        }
      });
    }
  }
});
