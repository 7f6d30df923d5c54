// A big fleet runs in a second process, started with glibc's huge-page tunable
// (host/tools/src/huge-pages.ts), which answers as the first would have; a smaller fleet,
// or a process started with the tunable, runs where it is.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { afterEach, expect, it } from "vitest";
import { HUGE_PAGES_FROM, inHugePages, withHugePages } from "../../../host/tools/src/huge-pages.js";
import { BIN } from "../../helpers/cli.js";

const given = process.env.GLIBC_TUNABLES;
afterEach(() => {
  if (given === undefined) delete process.env.GLIBC_TUNABLES;
  else process.env.GLIBC_TUNABLES = given;
});

it("runs a fleet smaller than HUGE_PAGES_FROM here", () => {
  delete process.env.GLIBC_TUNABLES;
  expect(inHugePages(HUGE_PAGES_FROM - 1)).toBeUndefined();
});

it("runs a big fleet here once the tunable is set, whatever its value", () => {
  process.env.GLIBC_TUNABLES = "glibc.malloc.hugetlb=0";
  expect(inHugePages(HUGE_PAGES_FROM)).toBeUndefined();
});

it("keeps the tunables given, and adds the huge pages'", () => {
  expect(withHugePages(undefined)).toBe("glibc.malloc.hugetlb=1");
  expect(withHugePages("glibc.malloc.arena_max=2")).toBe("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
});

/** `pid`'s child process and its GLIBC_TUNABLES once it shows the huge pages' (between
 * fork and exec a child still has its parent's environment), or the last seen before the
 * child ended. */
async function hugePagesChild(pid: number, ended: () => boolean) {
  let seen: { child: number; tunables?: string } | undefined;
  while (!ended() && !seen?.tunables?.includes("hugetlb")) {
    try {
      const child = Number(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")[0]);
      const env = child ? readFileSync(`/proc/${child}/environ`, "utf8").split("\0") : [];
      seen = { child, tunables: env.find((e) => e.startsWith("GLIBC_TUNABLES=")) ?? seen?.tunables };
    } catch {
      // The child ended between the two reads.
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return seen;
}

/** `tickretry fleet` with `args`, without GLIBC_TUNABLES; its stdout so far and its exit. */
function fleet(args: string[]) {
  const env = { ...process.env };
  delete env.GLIBC_TUNABLES;
  const cli = spawn(process.execPath, [BIN, "fleet", ...args], { env });
  const run = { cli, stdout: "", ended: false, exit: new Promise<number | null>(() => {}) };
  cli.stdout.on("data", (d: Buffer) => (run.stdout += d.toString()));
  run.exit = new Promise((resolve) => cli.on("exit", (code) => ((run.ended = true), resolve(code))));
  return run;
}

const big = ["--devices", `${HUGE_PAGES_FROM}`, "--seeds", "1", "--strategies", "C", "--json"];

it.runIf(process.platform === "linux")(
  "runs a big fleet in a child started with the tunable, with the child's output and exit code",
  async () => {
    const run = fleet([...big, "--duration", "1000"]);
    const seen = await hugePagesChild(run.cli.pid!, () => run.ended);
    expect(await run.exit).toBe(0);
    // (glibc rewrites the variable as it reads it: with more than one tunable, the
    // process's environment shows only the first.)
    expect(seen?.tunables).toBe("GLIBC_TUNABLES=glibc.malloc.hugetlb=1");
    const rows = JSON.parse(run.stdout) as { strategy: string; operations: number; totalRequests: number }[];
    expect(rows.map((r) => r.strategy)).toEqual(["C"]);
    // In 1 s, a 100,000-device fleet begins tens of thousands of operations.
    expect(rows[0].operations).toBeGreaterThan(10_000);
    expect(rows[0].totalRequests).toBeGreaterThanOrEqual(rows[0].operations);
  },
  30_000,
);

it.runIf(process.platform === "linux")(
  "passes SIGTERM on to the child, and ends as it did, leaving nothing running",
  async () => {
    const run = fleet([...big, "--duration", "60000"]);
    const seen = await hugePagesChild(run.cli.pid!, () => run.ended);
    expect(seen?.tunables).toContain("hugetlb");
    run.cli.kill("SIGTERM");
    expect(await run.exit).toBe(128 + constants.signals.SIGTERM);
    expect(existsSync(`/proc/${seen!.child}`)).toBe(false);
    expect(run.stdout).toBe("");
  },
  30_000,
);
