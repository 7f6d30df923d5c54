// A big fleet runs in a second process, started with glibc's huge-page tunable
// (host/tools/src/huge-pages.ts), which answers as the first would have; a smaller fleet,
// or a process started with the tunable, runs where it is.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { HUGE_PAGES_FROM, inHugePages, withHugePages } from "../../../host/tools/src/huge-pages.js";

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

/** The GLIBC_TUNABLES of `pid`'s child process once it shows the huge pages' (between
 * fork and exec a child still has its parent's environment), or the last seen before the
 * child ended. */
async function childTunables(pid: number, ended: () => boolean): Promise<string | undefined> {
  let seen: string | undefined;
  while (!ended() && !seen?.includes("hugetlb")) {
    try {
      const child = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")[0];
      const env = child ? readFileSync(`/proc/${child}/environ`, "utf8").split("\0") : [];
      seen = env.find((e) => e.startsWith("GLIBC_TUNABLES=")) ?? seen;
    } catch {
      // The child ended between the two reads.
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return seen;
}

it.runIf(process.platform === "linux")(
  "runs a big fleet in a child started with the tunable, with the child's output and exit code",
  async () => {
    const env = { ...process.env };
    delete env.GLIBC_TUNABLES;
    const args = [
      "--devices",
      `${HUGE_PAGES_FROM}`,
      "--duration",
      "1000",
      "--seeds",
      "1",
      "--strategies",
      "C",
    ];
    const cli = spawn(process.execPath, ["host/tools/bin/tickretry.js", "fleet", ...args, "--json"], { env });
    let stdout = "";
    cli.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    let ended = false;
    const exit = new Promise<number | null>((resolve) =>
      cli.on("exit", (code) => ((ended = true), resolve(code))),
    );
    const tunables = await childTunables(cli.pid!, () => ended);
    expect(await exit).toBe(0);
    // (glibc rewrites the variable as it reads it: with more than one tunable, the
    // process's environment shows only the first.)
    expect(tunables).toBe("GLIBC_TUNABLES=glibc.malloc.hugetlb=1");
    const rows = JSON.parse(stdout) as { strategy: string; operations: number; totalRequests: number }[];
    expect(rows.map((r) => r.strategy)).toEqual(["C"]);
    // In 1 s, a 100,000-device fleet begins tens of thousands of operations.
    expect(rows[0].operations).toBeGreaterThan(10_000);
    expect(rows[0].totalRequests).toBeGreaterThanOrEqual(rows[0].operations);
  },
  30_000,
);
