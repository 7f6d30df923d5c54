// A short chaos run with real processes (npm run chaos:device runs the long one): the
// upstream in a process of its own, the device killed with SIGKILL at seeded moments and
// then once in each narrow window of its pass, restarted from its state file each time.
// No reading may be lost or stored twice, and the device's log and the upstream's store
// must agree.
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { runChaos } from "../../../../host/tools/src/chaos/run.js";
import { expectAccounted } from "../../../helpers/chaos.js";
import { tsxArgs } from "../../../helpers/command.js";

it("loses no reading and stores none twice across SIGKILLs", async () => {
  const result = await runChaos({ kills: 4, seed: 7, windows: true });
  expectAccounted(result);
  // Kills left operations in flight for the next start to restore.
  expect(result.kills.some((k) => k.pendingLeft > 0)).toBe(true);
  expect(result.kills.map((k) => k.crashAt?.replace(/:\d+$/, "") ?? k.scenario)).toEqual([
    "outage",
    "outage",
    "flaky",
    "flaky",
    "before-write",
    "after-write",
    "answer",
  ]);
}, 180_000);

it("refuses bad arguments with exit code 2", () => {
  const args = ["--conditions=tickretry-source", ...tsxArgs("host/tools/src/chaos/cli.ts", "--kills", "0")];
  const r = spawnSync(process.execPath, args, { encoding: "utf8" });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('--kills wants an integer from 1 to 1000, got "0"');
}, 30_000);
