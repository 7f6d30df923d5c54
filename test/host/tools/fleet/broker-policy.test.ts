// The broker restart's goals (issue 36, item 6; docs/fleet.md, A broker restart): the
// broker's limit, and the overload-aware session against it and against backoffAlgorithm,
// over the five seeds of the docs, at the default 1,000 devices.
import { describe, expect, it } from "vitest";
import { Broker, DEFAULT_BROKER, reconnectFloorMs } from "../../../../host/tools/src/fleet/broker/model.js";
import { runBrokerRestart, type BrokerRow } from "../../../../host/tools/src/fleet/broker/run.js";
import { DEFAULT_BROKER_SETTINGS as SETTINGS } from "../../../../host/tools/src/fleet/broker/settings.js";
import {
  BROKER_STRATEGIES,
  OPERATOR_WINDOW_MS,
  OVERLOAD_AWARE,
  type BrokerStrategy,
} from "../../../../host/tools/src/fleet/broker/strategies.js";

const SEEDS = [42, 1, 2, 3, 4];
const LIMIT = reconnectFloorMs(SETTINGS.broker, SETTINGS.devices);
const named = (start: string) => BROKER_STRATEGIES.find((s) => s.name.startsWith(start))!;
const rows = (s: BrokerStrategy): BrokerRow[] => SEEDS.map((seed) => runBrokerRestart(SETTINGS, s, seed).row);
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
/** Each seed's time to 99%; a run that never got there fails the test that reads it. */
const times = (r: BrokerRow[]) => r.map((x) => x.reconnected99Ms ?? Infinity);

describe("the broker's limit", () => {
  it("serves 5 handshakes in a bucket while nothing is connected, 4 beside one device's publishes", () => {
    const served = (connected: number) => {
      const broker = new Broker(DEFAULT_BROKER, 0, 0, 1000);
      let ok = 0;
      for (let k = 0; k < 10; k++) ok += (broker.connect(100, connected), broker.answer.ok ? 1 : 0);
      return ok;
    };
    expect([served(0), served(1), served(1000)]).toEqual([5, 4, 4]);
    // 990 handshakes: 5 in the return's first bucket, 4 in each of 247 more, the last
    // connected 150 ms after its bucket begins.
    expect(LIMIT).toBe(247 * 100 + 150);
    // The operator's window: 1,000 handshakes at 4 a bucket, and the 10 s restart.
    expect(OPERATOR_WINDOW_MS).toBe(25_000 + 10_000);
  });

  it("is beaten by no strategy (seed 42)", () => {
    for (const s of BROKER_STRATEGIES) {
      const t = runBrokerRestart(SETTINGS, s, 42).row.reconnected99Ms;
      if (t !== null) expect(t, s.name).toBeGreaterThanOrEqual(LIMIT);
    }
  });
});

describe("the overload-aware session", () => {
  const aware = rows(OVERLOAD_AWARE);
  const backoffAlgorithm = rows(named("backoffAlgorithm"));

  it("with the operator's spread on the drop: 99% back within 1.2 x the limit, at most 3 connects per device", () => {
    const spread = rows(named("tickretry session, overload-aware + "));
    expect(Math.max(...times(spread))).toBeLessThanOrEqual(1.2 * LIMIT);
    expect(Math.max(...spread.map((r) => r.connectAttempts))).toBeLessThanOrEqual(3 * SETTINGS.devices);
  });

  it("without it: better than backoffAlgorithm on both axes, under 6,500 connects", () => {
    expect(mean(times(aware))).toBeLessThan(mean(times(backoffAlgorithm)));
    expect(Math.max(...aware.map((r) => r.connectAttempts))).toBeLessThan(6500);
    expect(Math.max(...aware.map((r) => r.connectAttempts))).toBeLessThan(
      Math.min(...backoffAlgorithm.map((r) => r.connectAttempts)),
    );
  });

  it("a spread window alone, without SPREAD_DROP, leaves a dropped session's reconnects as they were", () => {
    const windowOnly = { ...OVERLOAD_AWARE, policy: { ...OVERLOAD_AWARE.policy, spread: 35_000 } };
    expect(runBrokerRestart(SETTINGS, windowOnly, 42).row).toEqual(aware[0]);
  });

  it("owes its speed to reporting a handshake timeout THROTTLED: as refusals, the same waits are slower", () => {
    expect(mean(times(rows(named("tickretry session, decorrelated"))))).toBeGreaterThan(
      mean(times(aware)) + 2000,
    );
  });
});

describe("decorrelated jitter's formula in the broker restart", () => {
  it("the published one (the draw clamped at the cap) is slower than the module's (the range clamped)", () => {
    const published = times(rows(named("decorrelated jitter, published formula")));
    const module = times(rows(named("tickretry session, decorrelated")));
    expect(Math.min(...published)).toBeGreaterThan(Math.max(...module));
  });
});
