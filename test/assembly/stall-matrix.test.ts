// The stall matrix of docs/ABI.md, row by row: what the next poll does after a gap, for
// an operation waiting for its retry and one with an attempt in flight, on the module
// and on the model, from several first ticks (one just before the wrap).
import { describe, expect, test } from "vitest";
import {
  Counter,
  EndReason,
  Jitter,
  Outcome,
  PolicyFlag,
  Result,
  State,
} from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { tickAfter } from "../../host/library/src/ticks.js";
import type { Target } from "./harness/calls.js";
import { SchedulerModel } from "./model/scheduler.js";
import { tableUnder } from "../helpers/doc-tables.js";

const TIMEOUT = 3000;
const DEADLINE = 10_000;
const DELAY = 1000;
const STARTS = [0, 0xffff_ffff - 4000, 0x7fff_ff00, 123_456_789];

/** Evaluates a gap such as "timeout + 1" or "2^32 - 1". */
function gapTicks(expr: string): number {
  const terms = expr.replace(/timeout/g, String(TIMEOUT)).replace(/deadline/g, String(DEADLINE));
  return terms.split(/\s+(?=[+-])|(?<=[+-])\s+/).reduce((sum, term, i, all) => {
    if (term === "+" || term === "-") return sum;
    const [base, exp] = term.split("^").map(Number);
    const value = exp === undefined ? base : base ** exp;
    return all[i - 1] === "-" ? sum - value : sum + value;
  }, 0);
}

/** A fresh module instance or model, initialised. */
const TARGETS: Record<string, () => Target> = {
  module: () => create(7n),
  model: () => {
    const model = new SchedulerModel();
    model.init(7, 0);
    return model;
  },
};

/** Begins one operation at t0 and starts its attempt; `waiting` fails it at once. */
function setUp(t: Target, t0: number, waiting: boolean): number {
  const flags = Jitter.NONE | PolicyFlag.IDEMPOTENT;
  expect(t.setPolicy(0, 5, TIMEOUT, DELAY, DELAY, 0, DEADLINE, flags)).toBe(Result.OK);
  const h = t.begin(0, t0);
  expect(t.poll(t0)).toBe(h);
  if (waiting) expect(t.report(h, 1, Outcome.TRANSIENT, 0, t0)).toBe(Result.OK);
  return h;
}

/** Checks a "poll" cell and an "after" cell of the table. */
function check(t: Target, h: number, now: number, polled: number, pollCell: string, afterCell: string) {
  const [pollWord, note = ""] = pollCell.split(/:\s*/, 2);
  expect(polled).toBe(pollWord === "h" ? h : Result.NONE);
  const m = /^(\w+)(?: (\w+))? a=(\d+)$/.exec(afterCell);
  if (!m) throw new Error(`bad cell "${afterCell}"`);
  expect(t.state(h)).toBe(State[m[1] as keyof typeof State]);
  expect(t.endReason(h)).toBe(EndReason[(m[2] ?? "NONE") as keyof typeof EndReason]);
  expect(t.attempt(h)).toBe(Number(m[3]));
  const timedOut = /TIMEOUT/.test(note);
  expect(t.counter(Counter.ATTEMPT_TIMEOUTS)).toBe(timedOut ? 1 : 0);
  if (timedOut) expect(t.lastOutcome(h)).toBe(Outcome.TIMEOUT);
  expect(t.counter(Counter.CLOCK_FAULTS)).toBe(/clock fault/.test(note) ? 1 : 0);
  const due = /retry due in (\d+)/.exec(note);
  if (due) expect(t.nextAttemptAt(h)).toBe(tickAfter(now, Number(due[1])));
  const clipped = /clipped, (\d+) ticks? to run/.exec(note);
  if (clipped) {
    expect(t.attemptDeadline(h)).toBe(t.deadline(h));
    expect(t.attemptDeadline(h)).toBe(tickAfter(now, Number(clipped[1])));
  }
}

const rows = tableUnder("Stall matrix");

describe("stall matrix (docs/ABI.md)", () => {
  test("covers every gap the contract names, and each row's ticks match its gap", () => {
    expect(rows.map((r) => r[0])).toEqual([
      "0",
      "1",
      "timeout - 1",
      "timeout",
      "timeout + 1",
      "deadline - 1",
      "deadline",
      "deadline + 1",
      "2^31 - 1",
      "2^31",
      "2^32 - 1",
    ]);
    for (const [gap, ticks] of rows) expect(gapTicks(gap), gap).toBe(Number(ticks));
  });

  for (const [gap, ticks, waitPoll, waitAfter, flightPoll, flightAfter] of rows) {
    for (const [name, fresh] of Object.entries(TARGETS)) {
      test.each(STARTS)(
        `${name}, gap ${gap}: waiting → ${waitAfter}; in flight → ${flightAfter} (t0 = %i)`,
        (t0) => {
          const now = tickAfter(t0, Number(ticks));
          const waiting = fresh();
          const h = setUp(waiting, t0, true);
          check(waiting, h, now, waiting.poll(now), waitPoll, waitAfter);
          const inFlight = fresh();
          const g = setUp(inFlight, t0, false);
          check(inFlight, g, now, inFlight.poll(now), flightPoll, flightAfter);
        },
      );
    }
  }
});
