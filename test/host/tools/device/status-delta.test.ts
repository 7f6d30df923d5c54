// The delta protocol's rules on the simulator's side (host/tools/src/device/page/status-delta.ts),
// poll by poll: a group is left out only when it has not changed since the page's SEQ;
// the events and ended operations are cut at SEQ; SEQ 0 or past the newest gets everything.
import { describe, expect, it } from "vitest";
import { StatusMemo } from "../../../../host/tools/src/device/page/status-delta.js";
import type { DeviceStatus } from "../../../../host/tools/src/device/app/status.js";

/** A status with the groups these rules touch, its events numbered 1..newest. */
function status(newest: number, settings: string, loopPasses: number): DeviceStatus {
  const events = Array.from({ length: newest }, (_, i) => ({ seq: i + 1, kind: "begin" }));
  const recent = [{ seq: newest, operationId: 7 }];
  return {
    tick: { now: newest, wraps: 0, wallMs: 1000 + newest },
    loop: { passes: loopPasses },
    settings: { ssid: settings },
    events,
    recent,
  } as unknown as DeviceStatus;
}

describe("the status memo", () => {
  it("leaves a group out once the page has seen it and nothing changed since", () => {
    const memo = new StatusMemo();
    expect(Object.keys(memo.answer(status(4, "home", 1), 4, 0))).toContain("settings");
    // The page's SEQ is 4, and settings were last seen changing at 4: they may be news to it.
    expect(Object.keys(memo.answer(status(6, "home", 2), 6, 4))).toContain("settings");
    const third = memo.answer(status(9, "home", 3), 9, 6);
    expect(Object.keys(third).sort()).toEqual(["events", "loop", "recent", "tick"]);
    expect((third.events as { seq: number }[]).map((e) => e.seq)).toEqual([7, 8, 9]);
  });

  it("sends a group again once it changes, even with no event since", () => {
    const memo = new StatusMemo();
    memo.answer(status(4, "home", 1), 4, 0);
    memo.answer(status(8, "home", 1), 8, 4);
    expect(Object.keys(memo.answer(status(8, "home", 1), 8, 8))).not.toContain("settings");
    expect(memo.answer(status(8, "office", 1), 8, 8).settings).toEqual({ ssid: "office" });
  });

  it("leaves out live operations that only count down, and sends them on a change", () => {
    const memo = new StatusMemo();
    const at = (now: number, attempt: number) =>
      ({
        ...status(now, "home", 1),
        tick: { now, wraps: 0, wallMs: now },
        operations: [{ operationId: 7, attempt, nextAttemptInMs: 5000 - now, deadlineInMs: 9000 - now }],
        sessions: [{ name: "mqtt", upForMs: now - 10, nextTryInMs: null }],
      }) as unknown as DeviceStatus;
    memo.answer(at(4, 1), 4, 0);
    memo.answer(at(8, 1), 8, 4);
    const counting = memo.answer(at(12, 1), 12, 8);
    expect(["operations" in counting, "sessions" in counting]).toEqual([false, false]);
    expect(memo.answer(at(16, 2), 16, 12).operations).toEqual([
      { operationId: 7, attempt: 2, nextAttemptInMs: 4984, deadlineInMs: 8984 },
    ]);
  });

  it("answers everything to a SEQ past the newest (a page from before a board's reboot)", () => {
    const memo = new StatusMemo();
    memo.answer(status(4, "home", 1), 4, 0);
    memo.answer(status(8, "home", 1), 8, 4);
    const past = memo.answer(status(8, "home", 1), 8, 500);
    expect(past.settings).toEqual({ ssid: "home" });
    expect((past.events as unknown[]).length).toBe(8);
    expect((past.recent as unknown[]).length).toBe(1);
  });
});
