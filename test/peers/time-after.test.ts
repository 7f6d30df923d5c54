// Linux's wrap-safe tick comparisons, include/linux/jiffies.h (torvalds/linux @ 015a830d):
// time_after(a, b) is "(long)(b - a) < 0", time_after_eq(a, b) "(long)(a - b) >= 0",
// time_before, time_before_eq, time_in_range and time_in_range_open are built from them,
// INITIAL_JIFFIES starts the counter 300 * HZ before the wrap "so jiffies wrap bugs show up
// earlier", and MAX_JIFFY_OFFSET caps a timeout. A 32-bit long and HZ 1000 (a tick a
// millisecond) throughout. Set against host/library/src/ticks.ts, the C header
// boards/tickretry/tickretry_ticks.h (compiled here) and the module's own decisions.
// The expected truth values are the macros' results, written out. docs/peers.md, time_after.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { Error as AbiError, Limit, Outcome, State } from "../../host/library/src/generated/abi.js";
import { policyArgs } from "../../host/library/src/policy.js";
import { tickReached, ticksUntil } from "../../host/library/src/ticks.js";
import { ROOT, run } from "../helpers/command.js";
import { configured, peerPolicy, runOperation } from "./peer-run.js";

const INITIAL_JIFFIES = 2 ** 32 - 300 * 1000;
/** [a, b, time_after(a, b), time_after_eq(a, b)] for ticks less than 2^31 apart. */
const WRAP_TABLE: [number, number, boolean, boolean][] = [
  [1, 0, true, true],
  [0, 1, false, false],
  [5, 5, false, true],
  [0, 0xffffffff, true, true], // one tick after the wrap
  [0xffffffff, 0, false, false],
  [0x7fffffff, 0, true, true], // 2^31 - 1 ahead
  [0, 0x7fffffff, false, false],
  [0x80000001, 0, false, false], // 2^31 - 1 behind, across the wrap
  [0, 0x80000001, true, true],
  [(INITIAL_JIFFIES + 300_000) % 2 ** 32, INITIAL_JIFFIES, true, true], // five minutes after boot
  [0x12345678, 0x12345678 + 1000, false, false],
];
/** Exactly 2^31 apart: jiffies.h says each is after the other, and neither after_eq. */
const HALF_WAY: [number, number][] = [
  [0x80000000, 0],
  [0, 0x80000000],
  [0xc0000000, 0x40000000],
];

// The macros in the module's terms: a is after b when b is ahead of a by a negative
// distance; a is after or at b when b is reached at a.
const after = (a: number, b: number) => ticksUntil(b, a) > 0;
const afterEq = (a: number, b: number) => tickReached(a, b);

const work = mkdtempSync(join(tmpdir(), "tickretry-time-after-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("Linux include/linux/jiffies.h", () => {
  // time_before(a, b) is (long)(a - b) < 0, not time_after_eq(a, b); time_before_eq(a, b) is
  // (long)(b - a) >= 0, not time_after(a, b).
  test("time_after, time_before: the wrap table", () => {
    for (const [a, b, isAfter, isAfterEq] of WRAP_TABLE) {
      const before = ticksUntil(a, b) > 0; // b is ahead of a
      expect([a, b, after(a, b), before]).toEqual([a, b, isAfter, !isAfterEq]);
    }
  });

  test("time_after_eq, time_before_eq: the wrap table", () => {
    for (const [a, b, isAfter, isAfterEq] of WRAP_TABLE) {
      const beforeEq = tickReached(b, a); // a is reached at b
      expect([a, b, afterEq(a, b), beforeEq]).toEqual([a, b, isAfterEq, !isAfter]);
    }
  });

  test("time_in_range, time_in_range_open: [b, c] and [b, c) across the wrap", () => {
    const b = 0xfffffff0;
    const c = 10;
    const inRange = (a: number) => afterEq(a, b) && tickReached(c, a); // time_before_eq(a, c)
    const inOpen = (a: number) => afterEq(a, b) && ticksUntil(a, c) > 0; // time_before(a, c)
    const rows = [0xffffffef, b, 0xffffffff, 0, 9, c, 11].map((a) => [inRange(a), inOpen(a)]);
    const [f, t] = [false, true];
    expect(rows).toEqual([
      [f, f],
      [t, t],
      [t, t],
      [t, t],
      [t, t],
      [t, f],
      [f, f],
    ]);
  });

  test("exactly 2^31 apart: jiffies.h has each after the other and neither after_eq; tickReached has each reached (documented)", () => {
    // The one distance whose sign is ambiguous. The module sets no span that long
    // (Limit.MAX_SPAN is 2^31 - 1), and docs/ABI.md, Time, treats such a gap as a clock fault.
    for (const [a, b] of HALF_WAY) {
      expect([after(a, b), after(b, a)]).toEqual([false, false]); // jiffies.h: true, true
      expect([afterEq(a, b), afterEq(b, a)]).toEqual([true, true]); // jiffies.h: false, false
    }
  });

  test("boards/tickretry/tickretry_ticks.h gives the TypeScript helpers' answers on every row", () => {
    const exe = join(work, "ticks_check");
    run("gcc", [
      "-std=c11",
      "-Wall",
      "-Wextra",
      "-Werror",
      "-Iboards/tickretry",
      "test/peers/ticks_check.c",
      "-o",
      exe,
    ]);
    const pairs = [...WRAP_TABLE.map(([a, b]) => [a, b]), ...HALF_WAY];
    const input = pairs.map(([a, b]) => `${a} ${b}\n`).join("");
    const lines = execFileSync(exe, { input, cwd: ROOT, encoding: "utf8" }).trim().split("\n");
    expect(lines).toEqual(pairs.map(([a, b]) => `${tickReached(a, b) ? 1 : 0} ${ticksUntil(b, a)}`));
  });

  test("INITIAL_JIFFIES: a clock that wraps five minutes after boot retries and ends as one started at 0", () => {
    // Waits of 100 and 200 s and a 10 min deadline: the second retry falls on the wrap, the
    // deadline after it, before a third could; a retry is due at its tick, not one before.
    const policy = peerPolicy({
      maxAttempts: 0,
      baseDelay: 100_000,
      maxDelay: 1_000_000,
      deadline: 600_000,
      jitter: "NONE",
    });
    const fromZero = runOperation(configured(policy), Array(5).fill(Outcome.TRANSIENT), 0);
    const api = configured(policy);
    const wrapped = runOperation(api, Array(5).fill(Outcome.TRANSIENT), INITIAL_JIFFIES);
    expect(wrapped.waits).toEqual(fromZero.waits);
    expect([wrapped.waits, wrapped.endReason]).toEqual([[100_000, 200_000], fromZero.endReason]);
    const h = api.begin(0, INITIAL_JIFFIES);
    api.poll(INITIAL_JIFFIES);
    api.report(h, 1, Outcome.TRANSIENT, 0, INITIAL_JIFFIES);
    const due = api.nextAttemptAt(h);
    expect([api.poll((due - 1) >>> 0), api.state(h)]).toEqual([-1, State.WAITING]);
    expect(api.poll(due)).toBe(h);
  });

  test("MAX_JIFFY_OFFSET: the kernel caps a timeout at 2^30 - 2 ticks; the module takes 2^31 - 1 and refuses 2^31 (documented)", () => {
    const api = configured(peerPolicy({ maxAttempts: 3 }));
    const withTimeout = (attemptTimeout: number) =>
      api.setPolicy(0, ...policyArgs(peerPolicy({ attemptTimeout })));
    expect(withTimeout(2 ** 30)).toBe(0);
    expect(withTimeout(Limit.MAX_SPAN)).toBe(0);
    expect(withTimeout(2 ** 31)).toBe(AbiError.SPAN_TOO_LARGE);
  });
});
