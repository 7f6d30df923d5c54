// `tickretry fleet` end to end: the JSON rows it promises, policy files, the report, and
// exit code 2 with a clear message for bad arguments.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../../../host/tools/src/fleet/cli.js";
import { commandHere, tickretry } from "../../../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "fleet-cli-"));

const fleet = (...args: string[]) => tickretry("fleet", ...args);
/** The command in this process (spawning one per case would cost a second each). */
const fleetHere = (...args: string[]) => commandHere(run, args);

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("tickretry fleet", () => {
  it("prints one JSON row per strategy with the promised numeric keys", () => {
    const r = fleet("--devices", "40", "--seeds", "42", "--strategies", "A,B,C,D", "--json");
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((row) => row.strategy)).toEqual(["A", "B", "C", "D"]);
    for (const row of rows) {
      expect(row.arrivals).toBe("open");
      for (const key of [
        "successRate",
        "totalRequests",
        "retriesSent",
        "retriesDenied",
        "peak1s",
        "peak100ms",
        "tableFull",
      ]) {
        expect(typeof row[key]).toBe("number");
      }
      for (const key of ["p95Ms", "p99Ms", "recoveryMs"]) expect(typeof row[key]).toBe("number");
      expect(row.successRate).toBeGreaterThanOrEqual(0);
      expect(row.successRate).toBeLessThanOrEqual(1);
    }
  });

  it("runs a policy file, writes the report with both charts, gives min and max over seeds", () => {
    // The same policy as C, from a file: its figures must be C's.
    const policy = file("c-again.json", JSON.stringify({ policy: { jitter: "FULL" } }));
    const report = join(dir, "fleet.html");
    const r = fleet(
      "--devices",
      "40",
      "--seeds",
      "1,2",
      "--strategies",
      "C",
      "--policy",
      policy,
      "--json",
      "--report",
      report,
    );
    expect(r.code).toBe(0);
    const [c, again] = JSON.parse(r.stdout);
    expect(again.strategy).toBe("c-again");
    expect({ ...again, strategy: "C" }).toEqual(c);
    expect(c.seeds).toBe(2);
    expect(c.min.peak100ms).toBeLessThanOrEqual(c.peak100ms);
    expect(c.max.peak100ms).toBeGreaterThanOrEqual(c.peak100ms);
    const html = readFileSync(report, "utf8");
    expect(html.match(/<svg/g)).toHaveLength(2);
    // The model that ran, in the report's text and in both charts' subtitles.
    expect(html.match(/open arrivals \(upload timer/g)!.length).toBeGreaterThanOrEqual(4);
    expect(html).not.toMatch(/<script/);
  });

  it("runs the closed loop on request, and says so in every row and the table", async () => {
    const json = await fleetHere("--devices", "20", "--strategies", "C", "--arrivals", "closed", "--json");
    expect(JSON.parse(json.stdout)[0].arrivals).toBe("closed");
    const table = await fleetHere("--devices", "20", "--strategies", "C", "--arrivals", "closed");
    expect(table.stdout).toMatch(/closed loop \(one operation at a time/);
  });

  it("runs a power cut once per boot mode, with its figures and its chart in the report", async () => {
    const report = join(dir, "power-cut.html");
    const args = ["--devices", "40", "--strategies", "C", "--power-cut", "9000:3000", "--json"];
    const r = await fleetHere(...args, "--report", report);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, number | string>[];
    expect(rows.map((row) => row.strategy)).toEqual(["C/restore", "C/afresh"]);
    for (const row of rows) {
      for (const key of ["peak100msAfterBoot", "pendingAtCut", "pendingSuccessRate"]) {
        expect(typeof row[key]).toBe("number");
      }
    }
    expect(readFileSync(report, "utf8").match(/<svg/g)).toHaveLength(3);
    const all = await fleetHere(...args, "--boot", "restore-no-clock,afresh,restore");
    expect(JSON.parse(all.stdout).map((row: { strategy: string }) => row.strategy)).toEqual([
      "C/restore-no-clock",
      "C/afresh",
      "C/restore",
    ]);
    // Without a power cut the rows have none of its keys.
    const plain = await fleetHere("--devices", "20", "--strategies", "C", "--json");
    expect(JSON.parse(plain.stdout)[0]).not.toHaveProperty("peak100msAfterBoot");
  });

  it("models a given backend with --capacity; the default is the scaled one", async () => {
    const args = ["--devices", "200", "--strategies", "C", "--json"];
    const byDefault = await fleetHere(...args);
    const same = await fleetHere(...args, "--capacity", "10:40:100");
    expect(same.stdout).toBe(byDefault.stdout);
    const big = JSON.parse((await fleetHere(...args, "--capacity", "200:40:2000")).stdout)[0];
    const small = JSON.parse((await fleetHere(...args, "--capacity", "2:40:10")).stdout)[0];
    expect(big.successRate).toBeGreaterThan(small.successRate);
    expect(big.p99Ms).toBeLessThan(small.p99Ms);
  });

  it("adds the requests of every 100 ms to each row with --series", async () => {
    const r = await fleetHere("--devices", "40", "--strategies", "B,C", "--json", "--series");
    for (const row of JSON.parse(r.stdout) as { requestsPer100ms: number[]; totalRequests: number }[]) {
      expect(row.requestsPer100ms).toHaveLength(300);
      expect(row.requestsPer100ms.reduce((a, b) => a + b, 0)).toBe(row.totalRequests);
    }
  });

  it("refuses at once a fleet larger than the machine holds, saying how many fit", async () => {
    const r = await fleetHere("--devices", "900000000", "--json");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--devices "900000000": want a whole number from 1 to \d+ \(as many as this process holds/,
    );
  });

  it("exits 2 from the real binary for a bad argument", () => {
    const r = fleet("--devices", "-3");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tickretry fleet: .*--devices/);
  });

  it("prints its options for --help", async () => {
    const r = await fleetHere("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--devices N/);
  });

  it.each([
    [["--devices", "0"], /--devices "0"/],
    [["--devices", "ten"], /--devices "ten"/],
    [["--seeds", "1,x"], /--seeds "x"/],
    [["--strategies", "A,Z"], /unknown strategy "Z"/],
    [["--clocks", "sideways"], /--clocks "sideways"/],
    [["--think", "gauss:10"], /--think "gauss:10"/],
    [["--think", "fixed:0"], /at least 1/],
    [["--arrivals", "sideways"], /--arrivals "sideways"/],
    [["--interval", "exp:0"], /--interval "exp:0"/],
    [["--power-cut", "9000"], /--power-cut "9000"/],
    [["--power-cut", "9000:0"], /--power-cut "9000:0"/],
    [["--power-cut", "29000:2000"], /power must come back before --duration/],
    [["--power-cut", "9000:3000", "--boot", "reboot"], /--boot "reboot"/],
    [["--recovery-threshold", "2"], /--recovery-threshold "2"/],
    [["--capacity", "10:40"], /--capacity "10:40": want WORKERS:SERVICE_MS:QUEUE/],
    [["--capacity", "0:40:100"], /--capacity "0:40:100"/],
    [["--threads", "0"], /--threads "0"/],
    [["--frobnicate"], /frobnicate/],
    [["--devices", "-3"], /--devices "-3": want a whole number from 1/], // not parseArgs' "ambiguous"
    [["--policy", "/nonexistent/p.json"], /--policy \/nonexistent\/p.json/],
  ])("exits 2 with a clear message for %j", async (args, message) => {
    const r = await fleetHere(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });

  it.each([
    ['{"policy": {"maxAttempts": 256}}', /maxAttempts is 256; allowed: 0 to 255/],
    ['{"policy": {"deadline": 2147483648}}', /deadline is 2147483648; allowed: 0 to 2147483647/],
    ['{"budget": {"initial": 20000}}', /initial is 20000; allowed: 0 to capacity \(\d+\)/],
    [
      '{"policy": {"baseDelay": 9000, "maxDelay": 8000}}',
      /baseDelay is 9000; allowed: 0 to maxDelay \(8000\)/,
    ],
    ['{"policy": {"jitter": "SOMETIMES"}}', /jitter must be one of/],
    ['{"policy": {"retries": 3}}', /unknown field "retries"/],
    ["{not json", /--policy/],
  ])("exits 2 for a policy file the module or the parser refuses: %s", async (text, message) => {
    const r = await fleetHere("--devices", "10", "--policy", file("bad.json", text));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
