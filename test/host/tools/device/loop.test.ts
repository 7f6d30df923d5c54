// The device's main loop against the real flaky upstream over real HTTP, with a quick
// policy and a tick that wraps during every test. The device runs on a virtual clock: a
// test jumps from pass to pass instead of waiting, and only the loopback I/O takes real time.
import { afterEach, describe, expect, it } from "vitest";
import { Counter, EndReason, Outcome } from "../../../../host/library/src/generated/abi.js";
import { ticksUntil } from "../../../../host/library/src/ticks.js";
import { VirtualClock } from "../../../../host/tools/src/device/clock.js";
import { Device } from "../../../../host/tools/src/device/device.js";
import type { EndedOperation } from "../../../../host/tools/src/device/app/readings.js";
import { deviceStatus } from "../../../../host/tools/src/device/app/status.js";
import { startUpstream, type Upstream } from "../../../../host/tools/src/upstream/server.js";
import type { ScenarioName, Timing } from "../../../../host/tools/src/upstream/scenarios.js";
import { closedPort, NEAR_WRAP, QUICK, runUntil, type VirtualRig } from "../../../helpers/device.js";

let upstream: Upstream;
let device: Device;
let ended: EndedOperation[];
let rig: VirtualRig;
const until = <T>(what: string, check: () => T | undefined | false) => runUntil(rig, what, check);

async function boot(scenario: ScenarioName, timing: Partial<Timing> = {}, policy = QUICK): Promise<void> {
  upstream = await startUpstream({ scenario, timing: { latencyMs: 2, ...timing } });
  ended = [];
  const clock = new VirtualClock();
  device = new Device({
    upstreamUrl: upstream.url,
    seed: 11n,
    tickStart: NEAR_WRAP,
    policy,
    uploadEveryMs: 0,
    onEnd: (e) => ended.push(e),
    clock,
  });
  rig = { clock, device, upstream };
  device.start();
}

afterEach(async () => {
  device.stop();
  await upstream.close();
});

const attemptsSeen = (opId: number) => upstream.log().filter((s) => s.key === String(opId));
const endOf = (what: string) => until(what, () => ended[0]);

describe("the device loop", () => {
  it("retries through an outage with the same Idempotency-Key and succeeds when the upstream recovers", async () => {
    await boot("outage", {}, { ...QUICK, maxAttempts: 50 });
    device.requests.upload();
    const op = await until("a second attempt", () =>
      deviceStatus(device).operations.find((o) => o.attempt >= 2),
    );
    expect(op.lastOutcome).toBe("TRANSIENT");
    // Recover only after the tick wrapped, so the operation lives across the wrap.
    await until("the tick to wrap", () => device.running.tick.wraps >= 1);
    upstream.setScenario("healthy");
    const end = await endOf("the upload to end");
    expect(end).toMatchObject({ operationId: op.operationId, endReason: EndReason.SUCCEEDED });
    const seen = attemptsSeen(op.operationId);
    expect(seen.map((s) => s.attempt)).toEqual(seen.map((_, i) => String(i + 1)));
    expect(seen.length).toBe(end.attempts);
    expect(device.uploads.ops.size).toBe(0); // released
    expect(device.running.api.counter(Counter.CLOCK_FAULTS)).toBe(0);
  });

  it("stops after maxAttempts when the outage lasts", async () => {
    await boot("outage");
    device.requests.upload();
    const end = await endOf("exhaustion");
    expect(end).toMatchObject({ endReason: EndReason.EXHAUSTED, attempts: QUICK.maxAttempts });
    expect(upstream.stats().requests).toBe(QUICK.maxAttempts);
  });

  it("retries a reset (AMBIGUOUS, idempotent policy) and the upstream stores the upload once", async () => {
    await boot("reset", {}, { ...QUICK, maxAttempts: 50 });
    device.requests.upload();
    await until("the first reset", () => upstream.stats().resets >= 1);
    upstream.setScenario("healthy");
    const end = await endOf("the upload to end");
    expect(end.endReason).toBe(EndReason.SUCCEEDED);
    expect(end.attempts).toBeGreaterThanOrEqual(2);
    expect(device.running.api.counter(Counter.RETRIES_SCHEDULED)).toBeGreaterThanOrEqual(1);
    expect(upstream.stats()).toMatchObject({ stored: 1, replays: 1 });
  });

  it("times out a hung attempt and frees its request", async () => {
    await boot("hang", { hangMs: 60_000 }, { ...QUICK, attemptTimeout: 300, maxAttempts: 2 });
    device.requests.upload();
    const end = await endOf("the upload to end");
    expect(end).toMatchObject({ endReason: EndReason.EXHAUSTED, attempts: 2, lastOutcome: Outcome.TIMEOUT });
    expect(device.running.api.counter(Counter.ATTEMPT_TIMEOUTS)).toBe(2);
    expect(device.uploads.host.requestsAbandoned).toBe(2);
    await until("the upstream to see both requests closed", () => upstream.stats().holding === 0);
  });

  it("waits at least the Retry-After before the next attempt", async () => {
    await boot("busy"); // 503 with Retry-After: 2
    device.requests.upload();
    await until("the first attempt", () => upstream.stats().requests >= 1);
    upstream.setScenario("healthy");
    expect((await endOf("the upload to end")).endReason).toBe(EndReason.SUCCEEDED);
    expect(upstream.log()).toHaveLength(2);
    const [first, second] = device.events.list().filter((e) => e.kind === "start");
    expect(ticksUntil(first.t, second.t)).toBeGreaterThanOrEqual(2000);
  });

  it("ends DEADLINE instead of waiting for a Retry-After that reaches past the deadline", async () => {
    await boot("busy", {}, { ...QUICK, deadline: 1500 });
    device.requests.upload();
    const end = await endOf("the upload to end");
    expect(end).toMatchObject({ endReason: EndReason.DEADLINE, attempts: 1, lastOutcome: Outcome.THROTTLED });
  });

  it("counts a refused connection TRANSIENT (nothing was sent) and retries it", async () => {
    await boot("healthy");
    device.settings.current = {
      ...device.settings.current,
      upstreamUrl: `http://127.0.0.1:${await closedPort()}/upload`,
    };
    device.requests.upload();
    const end = await endOf("the upload to end");
    expect(end).toMatchObject({
      endReason: EndReason.EXHAUSTED,
      attempts: QUICK.maxAttempts,
      lastOutcome: Outcome.TRANSIENT,
      detail: "ECONNREFUSED before sending",
    });
  });

  it("begins the periodic upload on its own", async () => {
    upstream = await startUpstream({ scenario: "healthy", timing: { latencyMs: 1 } });
    const clock = new VirtualClock();
    device = new Device({ upstreamUrl: upstream.url, seed: 3n, policy: QUICK, uploadEveryMs: 100, clock });
    rig = { clock, device, upstream };
    device.start();
    await until("three uploads", () => upstream.stats().stored >= 3);
    expect(clock.nowMs()).toBeGreaterThanOrEqual(200); // the third reading, 100 ms apart
  });

  it("keeps an injected stall out of the loop's max gap and counts it apart", async () => {
    await boot("healthy");
    await until("a few passes", () => device.loopStats.snapshot().passes >= 5);
    device.requests.stall(400);
    await until("the pass after the stall", () => device.loopStats.snapshot().maxStalledGapMs > 0);
    const loop = device.loopStats.snapshot();
    expect(loop.stalls).toBe(1);
    expect(loop.maxStalledGapMs).toBeGreaterThanOrEqual(400);
    expect(loop.maxPassMs).toBeGreaterThanOrEqual(400);
  });
});
