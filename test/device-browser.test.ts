// The setup page in real headless Chromium against a running simulated device whose
// upstream is down: the page loads, shows an operation retrying, updates without a
// reload, refuses a bad SSID without storing it, and keeps answering during the outage.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Counter } from "../host/abi.js";
import { startSimulation, type Simulation } from "../host/device/simulation.js";
import { NEAR_WRAP, QUICK } from "./helpers/device.js";

let sim: Simulation;
let context: BrowserContext;
let page: Page;
let profile: string;

beforeAll(async () => {
  sim = await startSimulation({
    port: 0,
    scenario: "outage",
    // Many attempts, so operations are still retrying whenever the page looks.
    policy: { ...QUICK, maxAttempts: 100, maxDelay: 300, deadline: 20_000 },
    uploadEveryMs: 500,
    // No budget: it would stop the retries after 100 and this test watches them go on.
    budget: "off",
    tickStart: NEAR_WRAP,
  });
  profile = mkdtempSync(join(tmpdir(), "tickretry-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await context.newPage();
}, 30_000);

afterAll(async () => {
  await context?.close();
  await sim?.close();
  rmSync(profile, { recursive: true, force: true });
});

/** The operations table's rows as text cells. */
const operationRows = () =>
  page.$$eval("#operations tbody tr", (rows) =>
    rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent ?? "")),
  );

describe("the setup page in Chromium", () => {
  it("loads and shows an operation retrying, then updates it without a reload", async () => {
    await page.goto(sim.url);
    expect(await page.title()).toBe("tickretry device setup");
    // Columns: op id, state, attempt "n / max", ...; a retry is an attempt of 2 or more.
    const retrying = page.locator("#operations tbody tr", { hasText: /TRANSIENT/ }).filter({
      has: page.locator("td:nth-child(3)", { hasText: /^([2-9]|\d\d+) \// }),
    });
    await retrying.first().waitFor({ timeout: 15_000 });

    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    const before = JSON.stringify(await operationRows());
    const tick = await page.textContent("#device tbody tr:first-child td:nth-child(2)");
    await page.waitForFunction(
      ([rows, t]) =>
        JSON.stringify(
          [...document.querySelectorAll("#operations tbody tr")].map((r) =>
            [...r.querySelectorAll("td")].map((td) => td.textContent ?? ""),
          ),
        ) !== rows &&
        document.querySelector("#device tbody tr:first-child td:nth-child(2)")?.textContent !== t,
      [before, tick] as const,
      { timeout: 10_000 },
    );
    // Same document: the marker set before the change is still there.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
  });

  it("shows the error for an SSID over 32 bytes and stores nothing", async () => {
    await page.goto(sim.url);
    const before = { ...sim.device.settings };
    await page.fill("#ssid", "a-network-name-that-is-far-too-long");
    await page.fill("#password", "correct horse");
    await page.click("#settings button[type=submit]");
    await expect(page.textContent("#ssid-error")).resolves.toContain("SSID must be 1 to 32 bytes");
    await expect(page.textContent("#notice")).resolves.toContain("Nothing was stored");
    expect(sim.device.settings).toEqual(before);
    expect(await page.textContent("#stored-ssid")).toBe("(none)");
    // The typed value comes back for correction, escaped as a value, not as markup.
    expect(await page.inputValue("#ssid")).toBe("a-network-name-that-is-far-too-long");
  });

  it("stores a good SSID and shows it", async () => {
    await page.goto(sim.url);
    await page.fill("#ssid", "<b>café</b>");
    await page.click("#settings button[type=submit]");
    await expect(page.textContent("#notice")).resolves.toBe("Settings saved.");
    expect(sim.device.settings.ssid).toBe("<b>café</b>");
    expect(await page.textContent("#stored-ssid")).toBe("<b>café</b>");
  });

  it("keeps answering during the outage while the device retries", async () => {
    await page.goto(sim.url);
    const retriesBefore = sim.device.api.counter(Counter.RETRIES_SCHEDULED);
    const answers = await page.evaluate(async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await fetch(i % 2 ? "/status.json" : "/", { cache: "no-store" });
        await res.text();
        statuses.push(res.status);
        await new Promise((r) => setTimeout(r, 50));
      }
      return statuses;
    });
    expect(answers).toEqual(Array(30).fill(200));
    expect(sim.upstream!.scenario()).toBe("outage");
    expect(sim.device.api.counter(Counter.RETRIES_SCHEDULED)).toBeGreaterThan(retriesBefore);
    await page.reload();
    expect(await page.title()).toBe("tickretry device setup");
  });
});
