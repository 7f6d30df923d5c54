// `tickretry contention` end to end: the JSON rows it promises, and exit code 2 with a
// clear message for bad arguments.
import { describe, expect, it } from "vitest";
import { run } from "../../../../host/tools/src/contention/cli.js";
import { commandHere, tickretry } from "../../../helpers/cli.js";

/** The command in this process. */
const here = (...args: string[]) => commandHere(run, args);

describe("tickretry contention", () => {
  it("prints one JSON row per strategy and client count from the real binary", () => {
    const r = tickretry("contention", "--clients", "10,20", "--runs", "5", "--seed", "1", "--json");
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((row) => `${row.strategy}@${row.clients}`)).toEqual(
      [10, 20].flatMap((n) =>
        ["none", "exponential", "full", "equal", "decorrelated"].map((s) => `${s}@${n}`),
      ),
    );
    for (const row of rows) {
      expect(row.runs).toBe(5);
      expect(row.calls as number).toBeGreaterThanOrEqual(row.clients as number);
      expect(row.completionMs as number).toBeGreaterThan(0);
    }
  });

  it("prints both tables, and runs the comparison strategies on request", async () => {
    const r = await here(
      "--clients",
      "5",
      "--runs",
      "3",
      "--strategies",
      "decorrelated,decorrelated-published",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/writes sent \(calls\) +5 clients/);
    expect(r.stdout).toMatch(/completion ms/);
    expect(r.stdout).toMatch(/decorrelated-published/);
  });

  it.each([
    [["--clients", "256"], /--clients "256".*at most 255/],
    [["--clients", "0"], /--clients "0"/],
    [["--clients", "10,x"], /--clients "x"/],
    [["--runs", "0"], /--runs "0"/],
    [["--seed", "-1"], /--seed/],
    [["--threads", "0"], /--threads "0"/],
    [["--strategies", "full,sometimes"], /unknown strategy "sometimes"/],
    [["--frobnicate"], /frobnicate/],
  ])("exits 2 with a clear message for %j", async (args, message) => {
    const r = await here(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });
});
