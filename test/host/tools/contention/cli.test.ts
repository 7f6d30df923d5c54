// `tickretry contention` end to end: the JSON rows it promises, and exit code 2 with a
// clear message for bad arguments.
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { run } from "../../../../host/tools/src/contention/cli.js";

afterEach(() => vi.restoreAllMocks());

/** The command in this process. */
async function here(...args: string[]) {
  const out = vi.spyOn(console, "log").mockImplementation(() => {});
  const err = vi.spyOn(console, "error").mockImplementation(() => {});
  const code = await run(args);
  const text = (spy: typeof out) => spy.mock.calls.map((c) => c.join(" ")).join("\n");
  return { code, stdout: text(out), stderr: text(err) };
}

describe("tickretry contention", () => {
  it("prints one JSON row per strategy and client count from the real binary", () => {
    const r = spawnSync(
      process.execPath,
      [
        "host/tools/bin/tickretry.js",
        "contention",
        "--clients",
        "10,20",
        "--runs",
        "5",
        "--seed",
        "1",
        "--json",
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(0);
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
