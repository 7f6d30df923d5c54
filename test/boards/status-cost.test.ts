// What one GET /status.json costs the sketch (test/boards/status_cost.c over the sketch's
// writer, boards/app/status.c, built with gcc -O2): the bytes of the page's
// first poll and of a poll in the steady state, and the instructions of each under
// callgrind. A board sends its status without gzip, so the steady state keeps within
// 2 KB by the delta protocol alone: the events and ended operations after the page's
// ?since=SEQ, and only the groups that changed since (a countdown that only runs down is
// no change: the page counts it on by the tick).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { makeBoards, ROOT } from "../helpers/command.js";

const COST = `${ROOT}build/native/status_cost`;
const OUT = `${ROOT}build/native`;

type Status = Record<string, unknown> & { events: { seq: number }[]; recent: { seq: number }[] };

const answer = (poll: string, live: number) => {
  const text = execFileSync(COST, ["json", poll, String(live)], { encoding: "utf8" }).trim();
  return { bytes: Buffer.byteLength(text), status: JSON.parse(text) as Status };
};

/** Instructions per app_status_json call under callgrind. */
function instructions(poll: string, live: number): number {
  const file = `${OUT}/callgrind.status-${poll}.out`;
  const calls = Number(
    execFileSync(
      "valgrind",
      [
        "--tool=callgrind",
        `--callgrind-out-file=${file}`,
        "--toggle-collect=app_status_json",
        COST,
        "calls",
        poll,
        String(live),
        "200",
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    ).trim(),
  );
  const annotated = execFileSync("callgrind_annotate", ["--inclusive=yes", file], { encoding: "utf8" });
  const line = annotated.split("\n").find((l) => l.endsWith(":app_status_json"));
  if (!line)
    throw new Error(`callgrind: no app_status_json in ${file}\n${readFileSync(file, "utf8").slice(0, 200)}`);
  return Number(line.trim().split(/\s+/)[0].replace(/,/g, "")) / calls;
}

beforeAll(() => {
  makeBoards("status-cost");
}, 60_000);

describe("the sketch's /status.json per request", () => {
  it("the first poll carries everything; a poll in the steady state only what changed, within 2 KB", () => {
    const full = answer("full", 1);
    const steady = answer("steady", 1);
    const newest = Math.max(...full.status.events.map((e) => e.seq));
    expect(full.status.events).toHaveLength(32);
    expect(full.status.recent).toHaveLength(8);
    for (const group of ["device", "settings", "security", "faults", "store", "power"])
      expect([group, group in full.status]).toEqual([group, true]);
    // The third poll: since the second, an upload's four events and its end.
    expect(steady.status.events.map((e) => e.seq)).toEqual([newest - 3, newest - 2, newest - 1, newest]);
    expect(steady.status.recent.map((r) => r.seq)).toEqual([newest]);
    // What did not change since the second poll is left out; what moved is there.
    for (const group of ["device", "settings", "security", "faults", "store", "power", "readings", "host"])
      expect([group, group in steady.status]).toEqual([group, false]);
    for (const group of ["operations", "sessions"])
      expect([group, group in steady.status]).toEqual([group, false]);
    for (const group of ["tick", "loop", "counters"])
      expect([group, group in steady.status]).toEqual([group, true]);
    console.log(
      `sketch status.json: first poll ${full.bytes} B, steady-state poll ${steady.bytes} B (1 live operation)`,
    );
    expect(steady.bytes).toBeLessThanOrEqual(2048);
  });

  it("reads ?since as the simulator does: 1 to 10 digits below 2^32, anything else 0 (everything)", () => {
    const since = (v: string) => execFileSync(COST, ["since", v], { encoding: "utf8" }).trim();
    expect(["1032", "4294967295", "0"].map(since)).toEqual(["1032", "4294967295", "0"]);
    expect(["", "abc", "12a", "-1", " 5", "4294967296", "00000000001"].map(since)).toEqual(
      Array(7).fill("0"),
    );
  });

  it("a page that polled before a reboot (its seq past the newest) gets everything", () => {
    expect(answer("reboot", 1)).toEqual(answer("full", 1));
  });

  it("live operations that only count down are left out; a change sends every row", () => {
    const steady = [0, 1, 2, 16].map((live) => answer("steady", live));
    const retry = [1, 2, 16].map((live) => answer("retry", live));
    console.log(
      `sketch poll with 0, 1, 2, 16 live operations: ${steady.map((a) => a.bytes).join(", ")} B counting down; ` +
        `1, 2, 16 with one retrying: ${retry.map((a) => a.bytes).join(", ")} B`,
    );
    for (const a of steady) expect(["operations" in a.status, a.bytes]).toEqual([false, steady[0].bytes]);
    for (const [i, a] of retry.entries())
      expect((a.status.operations as unknown[]).length).toBe([1, 2, 16][i]);
  });

  it("under callgrind, a steady-state answer costs fewer instructions than a first one", () => {
    const full = instructions("full", 1);
    const steady = instructions("steady", 1);
    console.log(
      `sketch status.json instructions per request (callgrind, gcc -O2): first ${Math.round(full)}, steady ${Math.round(steady)}`,
    );
    expect(steady).toBeLessThan(full);
  }, 120_000);
});
