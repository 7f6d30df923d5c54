// The power cut: every device loses power at one moment and boots again later. Devices
// that restore their saved images go on with their pending uploads as the same
// operations (attempts in flight lost, waits and deadlines rebased); devices that begin
// every pending upload afresh send them all as first attempts the moment power returns.
import { describe, expect, it } from "vitest";
import { EndReason } from "../../../../host/library/src/generated/abi.js";
import { sendsAt, summarize, type RunRecord } from "../../../../host/tools/src/fleet/metrics.js";
import { experimentSettings } from "../../../../host/tools/src/fleet/settings.js";
import { runFleet } from "../../../../host/tools/src/fleet/simulator.js";
import { STRATEGIES, withBoot, type BootMode } from "../../../../host/tools/src/fleet/strategies.js";

const settings = { ...experimentSettings(), powerCut: { atMs: 9_000, outageMs: 3_000 } };
const BOOT = 120; // the 100 ms bucket at 12 s

const sends = (r: RunRecord, from: number, to: number, first = false) => {
  let n = 0;
  for (let b = from; b < to; b++) n += first ? r.firstSends.at(b) : sendsAt(r, b);
  return n;
};
const END = 400;
const run = (name: string, boot: BootMode) => runFleet(settings, withBoot(STRATEGIES[name], boot), 42);

describe.each(["A", "B", "C", "D"])("a power cut from 9 s to 12 s, strategy %s", (name) => {
  const restore = run(name, "restore");
  const noClock = run(name, "restore-no-clock");
  const afresh = run(name, "afresh");
  const all = [restore, noClock, afresh];

  it("runs alike until the cut, and sends nothing while the power is off", () => {
    for (const r of all) {
      expect(r.pendingAtCut).toBe(afresh.pendingAtCut);
      for (let b = 0; b < 90; b++) expect(sendsAt(r, b), `bucket ${b}`).toBe(sendsAt(afresh, b));
      expect(sends(r, 90, BOOT)).toBe(0);
      expect(r.bootAt).toBe(12_000);
    }
    expect(afresh.pendingAtCut).toBeGreaterThan(20);
  });

  it("every attempt the modules started was sent, every operation ended once", () => {
    for (const r of all) {
      expect(sends(r, 0, END)).toBe(r.attemptsStarted);
      expect(r.pendingSucceeded).toBeLessThanOrEqual(r.pendingAtCut);
      expect(r.opReason.every((reason) => reason !== EndReason.NONE)).toBe(true);
    }
  });

  it("afresh: every pending upload is a new operation, its first attempt sent as power returns", () => {
    expect(afresh.firstSends.at(BOOT)).toBeGreaterThanOrEqual(afresh.pendingAtCut);
    expect(afresh.pendingSucceeded).toBe(afresh.pendingAtCut);
  });

  it("restore: the pending uploads go on as the same operations, retried, not begun again", () => {
    for (const r of [restore, noClock]) {
      expect(sends(afresh, 0, END, true) - sends(r, 0, END, true)).toBe(afresh.pendingAtCut);
    }
  });

  if (name === "D") {
    it("restore: the restored budget, empty, denies the lost attempts' retries", () => {
      expect(restore.pendingSucceeded).toBeLessThan(restore.pendingAtCut / 2);
      expect(restore.retriesDenied).toBeGreaterThan(0);
    });
  } else {
    it("restore: the retry waits ran out during the outage, so every pending upload retries as power returns", () => {
      expect(restore.retrySends.at(BOOT)).toBe(restore.pendingAtCut);
      const peak = (r: RunRecord) => summarize(name, r, settings).peak100msAfterBoot;
      expect(peak(restore)).toBe(peak(afresh));
    });
  }

  if (name === "C") {
    it("restore without a clock: the jittered waits start at the boot and spread the retries", () => {
      expect(noClock.retrySends.at(BOOT)).toBeLessThan(0.8 * noClock.pendingAtCut);
      const peak = (r: RunRecord) => summarize(name, r, settings).peak100msAfterBoot!;
      expect(peak(noClock)).toBeLessThan(0.8 * peak(afresh));
    });
  }
});
