// tickretry fleet --scenario broker-restart: the real binary's JSON rows, and what the
// experiment must show about lockstep and jitter (host/tools/src/fleet/broker/).
import { describe, expect, it } from "vitest";
import { runBrokerRestart } from "../../../../host/tools/src/fleet/broker/run.js";
import { DEFAULT_BROKER_SETTINGS } from "../../../../host/tools/src/fleet/broker/settings.js";
import { perDevice } from "../../../helpers/instances.js";
import { BROKER_STRATEGIES } from "../../../../host/tools/src/fleet/broker/strategies.js";
import { tickretry } from "../../../helpers/cli.js";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brokerSpec } from "../../../../host/tools/src/fleet/broker/chart.js";

const fleet = (...args: string[]) => tickretry("fleet", ...args);

const SMALL = ["--devices", "100", "--restart", "10000:5000", "--duration", "120000"];

describe("tickretry fleet --scenario broker-restart", () => {
  it("prints a row per strategy with the promised keys", () => {
    const r = fleet("--scenario", "broker-restart", "--seeds", "42", "--json", ...SMALL);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((row) => row.strategy)).toEqual(BROKER_STRATEGIES.map((s) => s.name));
    for (const row of rows) {
      for (const key of ["peakConnects100ms", "connectAttempts", "overloadedMs"]) {
        expect(typeof row[key]).toBe("number");
      }
      expect(row.reconnected99Ms === null || typeof row.reconnected99Ms === "number").toBe(true);
    }
  });

  it("--series adds each row's connect attempts per 100 ms from the restart on", () => {
    const rows = (...more: string[]) =>
      JSON.parse(
        fleet("--scenario", "broker-restart", "--seeds", "42,7", "--json", ...SMALL, ...more).stdout,
      ) as {
        connectAttempts: number;
        connectsPer100ms?: number[];
      }[];
    const plain = rows();
    const series = rows("--series");
    expect(plain.every((r) => r.connectsPer100ms === undefined)).toBe(true);
    expect(series.map(({ connectsPer100ms, ...row }) => row)).toEqual(plain);
    for (const r of series) {
      // 10 s to 120 s in 100 ms buckets; the restart at 10 s starts a bucket.
      expect(r.connectsPer100ms).toHaveLength(1100);
      expect(r.connectsPer100ms!.reduce((a, b) => a + b, 0)).toBe(r.connectAttempts);
    }
  });

  it("prints an aligned table, and --report writes it with the chart, whose panels share one y scale", () => {
    const report = join(mkdtempSync(join(tmpdir(), "tickretry-broker-")), "broker.html");
    const r = fleet("--scenario", "broker-restart", "--seeds", "42", ...SMALL, "--report", report);
    expect(r.code).toBe(0);
    const table = r.stdout.split("\n").filter((l) => l.startsWith("|"));
    expect(table).toHaveLength(BROKER_STRATEGIES.length + 2);
    expect(new Set(table.map((l) => l.length)).size).toBe(1); // every line as wide: aligned
    expect(r.stdout).toContain(`report: ${report}`);
    const html = readFileSync(report, "utf8");
    expect(html.match(/<svg/g)).toHaveLength(1);
    expect(html.match(/<tr>/g)).toHaveLength(BROKER_STRATEGIES.length + 1);
    expect(html).not.toMatch(/<script/);
    const spec = brokerSpec(DEFAULT_BROKER_SETTINGS, [{ strategy: "a", attempts: [1] }], 42);
    expect(JSON.stringify(spec)).not.toContain("independent");
  });

  it.each([
    [["--restart", "10000"], /--restart "10000": want AT:MS/],
    [["--restart", "100000:250000"], /must be back before --duration/],
    [["--connect-cost", "0"], /--connect-cost/],
  ])("exits 2 with a clear message for %j", (args, message) => {
    const r = fleet("--scenario", "broker-restart", ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it("exits 2 for an unknown scenario", () => {
    const r = fleet("--scenario", "earthquake");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--scenario "earthquake": want outage or broker-restart/);
  });
});

describe("the broker restart, 300 devices", () => {
  const settings = { ...DEFAULT_BROKER_SETTINGS, devices: 300, durationMs: 200_000 };
  const row = (name: string) =>
    runBrokerRestart(
      settings,
      BROKER_STRATEGIES.find((s) => s.name.startsWith(name))!,
      42,
    ).row;

  it("esp-mqtt's fixed wait reconnects in lockstep: one burst of nearly every device", () => {
    expect(row("esp-mqtt").peakConnects100ms).toBeGreaterThan(0.8 * settings.devices);
  });

  it("full jitter, in the module as in backoffAlgorithm, spreads the burst and gets 99% back", () => {
    for (const name of ["backoffAlgorithm", "tickretry session, full jitter"]) {
      const r = row(name);
      expect(r.peakConnects100ms).toBeLessThan(row("esp-mqtt").peakConnects100ms / 2);
      expect(r.reconnected99Ms).not.toBeNull();
    }
  });

  it("the breaker sends fewer connects than full jitter alone", () => {
    const alone = row("tickretry session, full jitter");
    const breaker = row("tickretry session, full jitter + spread + breaker");
    expect(breaker.connectAttempts).toBeLessThan(alone.connectAttempts);
    expect(breaker.reconnected99Ms).not.toBeNull();
  });
});

describe("the broker restart's module devices in the pool", () => {
  it("give every strategy the rows and series an instance per device gives", () => {
    const settings = { ...DEFAULT_BROKER_SETTINGS, devices: 120, durationMs: 90_000 };
    for (const s of BROKER_STRATEGIES.filter((x) => x.kind === "module")) {
      expect(runBrokerRestart(settings, s, 7)).toEqual(
        runBrokerRestart(settings, s, 7, () => perDevice(settings.devices)),
      );
    }
  });

  it("holds past the instances a process can hold (12,789 here): 15,000 devices try again", () => {
    const settings = { ...DEFAULT_BROKER_SETTINGS, devices: 15_000, durationMs: 60_000 };
    const session = BROKER_STRATEGIES.find((s) => s.kind === "module")!;
    expect(runBrokerRestart(settings, session, 42).row.connectAttempts).toBeGreaterThan(settings.devices);
  });
});
