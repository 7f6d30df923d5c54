// The NVS wear model behind the page's flash-life figure and docs/device.md (issue 20,
// defect 5): pages erase only as fast as the blob's entries fill them, wear spreads over
// the free pages, and the sketch's rule (at most one NVS write per 20 minutes) gives at
// least 10 years however often the state changes (as it does in an outage), where
// writing every change (the old rule, at least twice per upload a minute) gave under one.
import { describe, expect, it } from "vitest";
import {
  blobEntries,
  ENTRY_BYTES,
  flashLifeYears,
  KEPT_BYTES,
  NvsModel,
  PAGE_ENTRIES,
  sketchNvsWritesPerDay,
} from "../../../../host/tools/src/device/nvs-wear.js";

describe("the NVS model", () => {
  it("erases a page for every page's worth of entries written, spread over the free pages", () => {
    const nvs = new NvsModel(5);
    const entries = blobEntries(KEPT_BYTES);
    expect(entries).toBe(2 + Math.ceil(KEPT_BYTES / ENTRY_BYTES));
    for (let i = 0; i < 1000; i++) nvs.write("kept", entries);
    const erases = nvs.pages.reduce((n, p) => n + p.erases, 0);
    // Every erase reclaims at most a page; the first pages fill before any is erased.
    expect(erases).toBeGreaterThan((1000 * entries) / PAGE_ENTRIES - 5);
    expect(erases).toBeLessThanOrEqual((1000 * entries) / PAGE_ENTRIES);
    expect(nvs.pages.filter((p) => p.erases > 0).length).toBeGreaterThanOrEqual(3);
  });

  it("keeps a small key live through every collection", () => {
    const nvs = new NvsModel(5);
    nvs.write("epoch", 1);
    for (let i = 0; i < 500; i++) nvs.write("kept", blobEntries(KEPT_BYTES));
    const used = nvs.pages.reduce((n, p) => n + p.used - p.erased, 0);
    expect(used).toBe(1 + blobEntries(KEPT_BYTES));
  });
});

describe("the flash life at the sketch's default upload rate (one a minute)", () => {
  const perDay = (perUpload: number) => perUpload * 24 * 60;
  it("is at least 10 years healthy and in outage under the 20-minute rule", () => {
    // Healthy: a handful of state changes per upload; outage: six attempts' worth each.
    for (const changes of [perDay(4), perDay(30)]) {
      expect(flashLifeYears(sketchNvsWritesPerDay(changes))).toBeGreaterThanOrEqual(10);
    }
  });

  it("was under a year when every change went to NVS", () => {
    expect(flashLifeYears(perDay(2))).toBeLessThan(1);
  });
});
