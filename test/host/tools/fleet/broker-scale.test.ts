// The broker restart at other fleet sizes: the broker grows with the fleet by default
// (host/tools/src/fleet/broker/settings.ts), --broker-cpu sets it, and a bad value is
// refused with a message before anything runs.
import { describe, expect, it } from "vitest";
import { runBrokerCli } from "../../../../host/tools/src/fleet/broker/cli.js";
import { BROKER_DEVICE, devicesThatFit } from "../../../../host/tools/src/fleet/fits.js";
import { DEFAULT_BROKER } from "../../../../host/tools/src/fleet/broker/model.js";
import { runBrokerRestart } from "../../../../host/tools/src/fleet/broker/run.js";
import { BROKER_DEVICES, brokerSettings } from "../../../../host/tools/src/fleet/broker/settings.js";
import { BROKER_STRATEGIES } from "../../../../host/tools/src/fleet/broker/strategies.js";
import { commandHere } from "../../../helpers/cli.js";

/** The command in this process: its exit code and what it printed. */
const brokerHere = (...args: string[]) =>
  commandHere(runBrokerCli, ["--scenario", "broker-restart", ...args]);

describe("the broker's CPU", () => {
  const cpu = (devices: number, given?: number) => brokerSettings(devices, given).broker.cpuPerBucketMs;

  it("is the default broker's at the scenario's 1,000 devices", () => {
    expect(BROKER_DEVICES).toBe(1000);
    expect(brokerSettings().broker).toEqual(DEFAULT_BROKER);
  });

  it("grows with the fleet by default: twice the devices, twice the CPU and the accept queue", () => {
    expect(cpu(2000)).toBe(2 * cpu(1000));
    expect(cpu(1_000_000)).toBe(1000 * cpu(1000));
    expect(brokerSettings(2000).broker.backlog).toBe(2 * DEFAULT_BROKER.backlog);
  });

  it("never falls below one core for a small fleet", () => {
    expect(cpu(10)).toBe(DEFAULT_BROKER.cpuPerBucketMs);
  });

  it("is what --broker-cpu gives, at any fleet size", () => {
    expect(cpu(50_000, 300)).toBe(300);
  });
});

describe("a fleet three times the scenario's, with the broker scaled by default", () => {
  const run = (devices: number, name: string, cpu?: number) => {
    const strategy = BROKER_STRATEGIES.find((s) => s.name.startsWith(name))!;
    const { row } = runBrokerRestart(brokerSettings(devices, cpu), strategy, 42);
    return {
      ...row,
      peakPerDevice: row.peakConnects100ms / devices,
      perDevice: row.connectAttempts / devices,
    };
  };
  const near = (v: number, of: number, share: number) => expect(Math.abs(v - of)).toBeLessThan(share * of);

  it.each(["esp-mqtt", "backoffAlgorithm"])("meets the same broker per device: %s", (name) => {
    const [small, large] = [run(BROKER_DEVICES, name), run(3 * BROKER_DEVICES, name)];
    near(large.peakPerDevice, small.peakPerDevice, 0.1);
    near(large.perDevice, small.perDevice, 0.1);
  });

  it("where a broker that does not grow is overloaded for far longer", () => {
    const small = run(BROKER_DEVICES, "backoffAlgorithm");
    near(run(3 * BROKER_DEVICES, "backoffAlgorithm").overloadedMs, small.overloadedMs, 0.25);
    const fixed = run(3 * BROKER_DEVICES, "backoffAlgorithm", DEFAULT_BROKER.cpuPerBucketMs);
    expect(fixed.overloadedMs).toBeGreaterThan(2 * small.overloadedMs);
  });
});

describe("--broker-cpu", () => {
  it.each([
    [["--broker-cpu", "0"], /--broker-cpu "0": want a whole number from 1/],
    [["--broker-cpu", "1.5"], /--broker-cpu "1.5": want a whole number/],
    [["--broker-cpu", "-100"], /--broker-cpu "-100": want a whole number/],
    [["--broker-cpu", "10"], /--broker-cpu "10": less than a handshake's 20 ms \(--connect-cost\)/],
    [["--broker-cpu", "50", "--connect-cost", "60"], /--broker-cpu "50": less than a handshake's 60 ms/],
  ])("exits 2 with a clear message for %j, printing no rows", async (args, message) => {
    const r = await brokerHere(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });

  it("runs with a broker as large as given", async () => {
    const small = ["--devices", "60", "--duration", "60000", "--json"];
    const rows = async (cpu: string) =>
      JSON.parse((await brokerHere(...small, "--broker-cpu", cpu)).stdout) as { overloadedMs: number }[];
    const overloaded = async (cpu: string) => (await rows(cpu)).reduce((sum, r) => sum + r.overloadedMs, 0);
    // A broker of 20 ms a bucket serves one handshake per 100 ms; one of 10,000, every one.
    expect(await overloaded("20")).toBeGreaterThan(0);
    expect(await overloaded("10000")).toBe(0);
  });
});

describe("--devices", () => {
  it("is refused past what this process holds, with that number, before anything runs", async () => {
    const fit = devicesThatFit(BROKER_DEVICE);
    const r = await brokerHere("--devices", `${fit + 1}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`want a whole number from 1 to ${fit} (as many as this process holds`);
    expect(r.stdout).toBe("");
  });
});
