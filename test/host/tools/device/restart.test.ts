// The device's state across restarts, reboots and deep sleeps, against the real upstream:
// what one upload costs in state-file writes, a new process going on with the operations
// and readings the last one left, Reboot and Deep sleep restoring the stored image, the
// queue of readings that found every slot taken, and a state file that is refused. The
// devices run on one virtual clock (a restarted process goes on from the same time), so a
// test jumps from pass to pass; only the loopback I/O takes real time.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EndReason } from "../../../../host/library/src/generated/abi.js";
import { VirtualClock } from "../../../../host/tools/src/device/clock.js";
import { Device, type DeviceOptions } from "../../../../host/tools/src/device/device.js";
import type { EndedOperation } from "../../../../host/tools/src/device/app/readings.js";
import type { LogEvent, ReadingsLog } from "../../../../host/tools/src/device/app/readings.js";
import { READINGS_PER_EPOCH } from "../../../../host/tools/src/device/app/readings.js";
import {
  fileStore,
  memoryStore,
  StateFileError,
  type StateStore,
} from "../../../../host/tools/src/device/app/kept.js";
import { deviceStatus } from "../../../../host/tools/src/device/app/status.js";
import type { PolicyFields } from "../../../../host/library/src/policy.js";
import type { ScenarioName, Timing } from "../../../../host/tools/src/upstream/scenarios.js";
import { startUpstream, type Upstream } from "../../../../host/tools/src/upstream/server.js";
import { NEAR_WRAP, QUICK, runFor, runUntil, type VirtualRig } from "../../../helpers/device.js";

const dir = mkdtempSync(join(tmpdir(), "tickretry-restart-"));
let upstream: Upstream;
let devices: Device[] = [];
let ended: EndedOperation[];
let log: LogEvent[];
let clock: VirtualClock;
/** The device booted last, on the one clock. */
let rig: VirtualRig;
const until = <T>(what: string, check: () => T | undefined | false) => runUntil(rig, what, check);
const sleep = (ms: number) => runFor(rig, ms);

/** Collects the log's lines in memory (the file form is the chaos run's). */
const memoryLog: ReadingsLog = { append: (events) => void log.push(...events) };

async function startUpstreamWith(scenario: ScenarioName, timing: Partial<Timing> = {}): Promise<void> {
  upstream = await startUpstream({ scenario, timing: { latencyMs: 2, ...timing } });
  ended = [];
  log = [];
  clock = new VirtualClock();
}

function boot(store: StateStore, policy: PolicyFields = QUICK, options: Partial<DeviceOptions> = {}): Device {
  const device = new Device({
    upstreamUrl: upstream.url,
    seed: 5n,
    tickStart: NEAR_WRAP,
    policy,
    uploadEveryMs: 0,
    store,
    log: memoryLog,
    onEnd: (e) => ended.push(e),
    clock,
    ...options,
  });
  rig = { clock, device, upstream };
  devices.push(device);
  device.start();
  return device;
}

afterEach(async () => {
  for (const d of devices) d.stop();
  devices = [];
  await upstream.close();
});

/** The readings stored by the upstream, by the key they were stored under. */
const storedReadings = () =>
  upstream.stored().map((s) => [s.key, (JSON.parse(s.body) as { reading: number }).reading]);

describe("state-file writes", () => {
  it("cost two per upload that succeeds at once (the begin with its first attempt, and the end), after the boot's one", async () => {
    await startUpstreamWith("healthy");
    const device = boot(memoryStore());
    for (let i = 1; i <= 3; i++) {
      device.requests.upload();
      await until("the upload to end", () => ended.length === i);
    }
    expect(ended.map((e) => e.endReason)).toEqual(Array(3).fill(EndReason.SUCCEEDED));
    // One write for the boot's reading epoch (stored before the boot numbers a reading), then two per upload.
    expect(device.kept.figures).toMatchObject({ writes: 1 + 2 * 3, operationsEnded: 3 });
    expect(deviceStatus(device).store.writesPerOperation).toBeCloseTo(7 / 3);
    // No change, no write: an idle device writes nothing however long it runs.
    await sleep(100);
    expect(device.kept.figures.writes).toBe(7);
  });
});

describe("a restarted process", () => {
  it("goes on with the operations and readings the last one left, under the same operation ids", async () => {
    await startUpstreamWith("outage");
    const path = join(dir, "restart.json");
    const long = { ...QUICK, maxAttempts: 50, deadline: 30_000 };
    const first = boot(fileStore(path), long, { queueLimit: 4 });
    for (let i = 0; i < 3; i++) first.requests.upload();
    const live = await until("three retrying uploads", () => {
      const ops = deviceStatus(first).operations;
      return ops.length === 3 && ops.every((o) => o.attempt >= 2) && ops;
    });
    first.stop(); // as a kill does: no goodbye write
    upstream.setScenario("healthy");

    const second = boot(fileStore(path), QUICK);
    expect(second.boot).toMatchObject({ kind: "restart", restoredOperations: 3 });
    expect(second.kept.policy).toEqual(long); // the stored scheduler's policy, not the one asked for
    await until("the three uploads to end", () => ended.length === 3);
    expect(new Set(ended.map((e) => e.operationId))).toEqual(new Set(live.map((o) => o.operationId)));
    expect(ended.every((e) => e.endReason === EndReason.SUCCEEDED)).toBe(true);
    expect(storedReadings().sort()).toEqual(live.map((o) => [String(o.operationId), o.reading]).sort());
    // Each reading's begin and end were logged once each (a line may repeat after a kill, not here).
    expect(log.filter((e) => e.event === "began")).toHaveLength(3);
    expect(log.filter((e) => e.event === "ended")).toHaveLength(3);
  });

  it("refuses a state file it cannot read, says which and why, and leaves it alone", async () => {
    await startUpstreamWith("healthy");
    const path = join(dir, "broken.json");
    writeFileSync(path, '{"format":1,"savedAtMs":"yesterday"}');
    expect(() => boot(fileStore(path))).toThrow(StateFileError);
    expect(() => boot(fileStore(path))).toThrow(
      `state file ${path}: no checksum (not a state file of this device)`,
    );
    expect(readFileSync(path, "utf8")).toBe('{"format":1,"savedAtMs":"yesterday"}');
  });

  it("refuses an image the module refuses, naming the module's error", async () => {
    await startUpstreamWith("healthy");
    const store = memoryStore();
    const device = boot(store);
    device.requests.upload();
    await until("the upload to end", () => ended.length === 1);
    device.stop();
    const state = store.load()!;
    state.image[state.image.length - 1] ^= 1;
    store.save(state);
    expect(() => boot(store)).toThrow("the module refused its image (IMAGE_CRC)");
  });
});

describe("Reboot and Deep sleep", () => {
  it("Reboot: a fresh instance from the stored image; the attempt in flight is retried under the same id", async () => {
    await startUpstreamWith("hang", { hangMs: 60_000 });
    const device = boot(memoryStore(), { ...QUICK, attemptTimeout: 5000 });
    device.requests.upload();
    await until("the first attempt to hang", () => upstream.stats().holding === 1);
    const [op] = deviceStatus(device).operations;
    const before = device.running.api;
    device.requests.reboot();
    await until("the reboot", () => device.boot.kind === "reboot");
    upstream.setScenario("healthy"); // the hung request died with the power
    const end = await until("the upload to end", () => ended[0]);
    expect(device.running.api).not.toBe(before);
    expect(device.boot).toMatchObject({ kind: "reboot", count: 2, restoredOperations: 1 });
    expect(end).toMatchObject({ operationId: op.operationId, endReason: EndReason.SUCCEEDED, attempts: 2 });
    expect(upstream.log().map((s) => [s.key, s.attempt])).toEqual([
      [String(op.operationId), "1"],
      [String(op.operationId), "2"],
    ]);
  });

  it("Deep sleep: nothing runs for the time asked, then the image comes back with that time passed", async () => {
    await startUpstreamWith("outage");
    // No budget: the upload retries on through the second before the sleep begins.
    const policy = { ...QUICK, maxAttempts: 50, maxDelay: 100, deadline: 30_000 };
    const device = boot(memoryStore(), policy, { budget: "off" });
    device.requests.upload();
    await until("a retry", () => deviceStatus(device).operations[0]?.attempt >= 2);
    device.requests.deepSleep(1000);
    await until("sleep", () => device.asleepForMs() !== undefined);
    const requests = upstream.stats().requests;
    await sleep(500);
    expect(upstream.stats().requests).toBe(requests);
    expect(deviceStatus(device).power.asleepForMs).toBeGreaterThan(0);
    await until("the wake", () => device.boot.kind === "deep sleep");
    expect(device.boot.elapsedMs).toBeGreaterThanOrEqual(1000);
    expect(device.boot.restoredOperations).toBe(1);
    upstream.setScenario("healthy");
    expect((await until("the upload to end", () => ended[0])).endReason).toBe(EndReason.SUCCEEDED);
  });

  it("an operation whose deadline passes during a deep sleep ends DEADLINE at the wake", async () => {
    await startUpstreamWith("outage");
    // The sleep begins LOOP.powerAfterMs (1 s) after the pass that saw it, before the deadline.
    const device = boot(memoryStore(), { ...QUICK, maxAttempts: 50, deadline: 1600 }, { budget: "off" });
    device.requests.upload();
    await until("the first attempt", () => upstream.stats().requests >= 1);
    device.requests.deepSleep(3000);
    const end = await until("the upload to end", () => ended[0]);
    expect(end.endReason).toBe(EndReason.DEADLINE);
    expect(device.boot).toMatchObject({ kind: "deep sleep", restoredOperations: 1 });
  });
});

describe("the queue of readings", () => {
  it("holds readings that find every slot taken, begins them as slots free, and drops the oldest when full", async () => {
    await startUpstreamWith("hang", { hangMs: 60_000 });
    const device = boot(memoryStore(), { ...QUICK, attemptTimeout: 1500, maxAttempts: 1 }, { queueLimit: 4 });
    for (let i = 0; i < 22; i++) device.requests.upload();
    await until("sixteen operations", () => device.uploads.ops.size === 16);
    expect(deviceStatus(device).readings).toMatchObject({ queued: 4, queueLimit: 4, dropped: 2 });
    // Readings are numbered within the boot's epoch (app/readings.ts, readingId).
    const seq = (reading: number) => reading % READINGS_PER_EPOCH;
    expect(log.filter((e) => e.event === "dropped").map((e) => seq(e.reading))).toEqual([16, 17]);
    // Each drop says what held the queue (the chaos run counts drops by it).
    expect(log.flatMap((e) => (e.event === "dropped" ? [e.while] : []))).toEqual([
      "every upload slot taken",
      "every upload slot taken",
    ]);
    await until("every reading to end", () => ended.length === 20);
    expect(ended.map((e) => seq(e.reading)).sort((a, b) => a - b)).toEqual([
      ...Array.from({ length: 16 }, (_, i) => i),
      18,
      19,
      20,
      21,
    ]);
    expect(deviceStatus(device).readings.queued).toBe(0);
  });
});
