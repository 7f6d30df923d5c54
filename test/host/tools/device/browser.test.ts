// The setup page in real headless Chromium against a running simulated device whose
// upstream is down: it reads well at 390x844 and 1280x800 without console errors, the
// live timeline gains operations, the first setup sets the device password, the forms
// refuse a bad SSID and store a good one, the playground runs the device's module and
// shows a refusal, the copy buttons give the texts docs/device.md shows, a policy's
// breaker is held and released from the Status view, and the page keeps answering during
// the outage. Screenshots go to out/.
import { mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Breaker, Counter } from "../../../../host/library/src/generated/abi.js";
import type { Simulation, SimulationOptions } from "../../../../host/tools/src/device/simulation.js";
import { openDevicePage } from "../../../helpers/browser.js";
import { NEAR_WRAP, QUICK } from "../../../helpers/device.js";
import { ARTICLE } from "../../../helpers/policies.js";

const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
const OUT = `${ROOT}out/page`;

let sim: Simulation;
let page: Page;
let close: (() => Promise<void>) | undefined;
const consoleErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  const options: SimulationOptions = {
    port: 0,
    scenario: "outage",
    // Many attempts, so operations are still retrying whenever the page looks.
    policy: { ...QUICK, maxAttempts: 100, maxDelay: 300, deadline: 20_000 },
    uploadEveryMs: 500,
    // No budget: it would stop the retries after 100 and this test watches them go on.
    budget: "off",
    tickStart: NEAR_WRAP,
  };
  ({ sim, page, close } = await openDevicePage(options, ["clipboard-read", "clipboard-write"]));
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  page.on("pageerror", (e) => consoleErrors.push(e.message));
}, 30_000);

afterAll(() => close?.());

const view = (name: string) => page.click(`nav button[data-view=${name}]`);

/** The Policy view set to the seed article's example policy, as the docs show it (it starts from the device's). */
async function examplePolicy(): Promise<void> {
  const fields = Object.entries(ARTICLE).filter(([name]) => name !== "jitter" && name !== "idempotent");
  for (const [name, value] of fields) await page.fill(`#policy-form input[name=${name}]`, String(value));
  await page.selectOption("#policy-form select[name=jitter]", "FULL");
  await page.check("#policy-form input[name=idempotent]");
  await page.fill("#policy-form input[name=capacity]", "0");
  // Computed a moment after the last input: its worst case is the sign.
  await page.waitForFunction(() => document.getElementById("pg-summary")?.textContent?.includes("49.0 s"));
}
/** Distinct operations the live timeline draws. */
const timelineRows = () =>
  page.$$eval("#timeline text", (t) => t.filter((x) => /^\d+$/.test(x.textContent ?? "")).length);

describe("the page in Chromium", () => {
  it("reads well at 390x844 and 1280x800, with no console errors", async () => {
    for (const [width, height] of [
      [390, 844],
      [1280, 800],
    ]) {
      await page.setViewportSize({ width, height });
      await page.goto(sim.url);
      await page.locator("#cards .card").first().waitFor();
      await page.locator("#timeline rect.attempt").first().waitFor({ timeout: 15_000 });
      // Nothing sticks out sideways: wide tables scroll inside their own box.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect([width, overflow]).toEqual([width, 0]);
      // Text stays legible: the timeline is drawn at the size it is shown. Polled: on a
      // loaded machine a just-drawn text can measure 0 px high for a moment, until its
      // font is in (seen in CI, and at 13 px a moment later).
      const smallest = () =>
        page.$$eval("#timeline text", (t) => Math.min(...t.map((x) => x.getBoundingClientRect().height)));
      await expect.poll(smallest, { timeout: 5_000 }).toBeGreaterThanOrEqual(9);
      await page.screenshot({ path: `${OUT}/status-${width}.png` });
    }
    await view("policy");
    await page.waitForSelector("body[data-playground=ready]");
    await page.screenshot({ path: `${OUT}/policy-1280.png`, fullPage: true });
    expect(consoleErrors).toEqual([]);
  });

  it("says the demo's speed-up, 'none' for an empty table, and the device's state, not each poll", async () => {
    await page.goto(sim.url);
    await page.locator("#timeline rect.attempt").first().waitFor({ timeout: 15_000 });
    // --upload-every 500 here: the firmware's 60 s, 120 times as often.
    expect(await page.textContent("#card-readings")).toContain(
      "every 0.5 sthe firmware's 60 s, sped up 120x for this demo",
    );
    expect(await page.textContent("#sessions tbody")).toBe("none");
    const live = await page.textContent("#live");
    expect(live).toBe("live: the device is awake after a power-on (boot 1), upstream scenario outage");
    await page.waitForTimeout(1500); // three polls
    expect(await page.textContent("#live")).toBe(live);
    sim.upstream!.setScenario("flaky");
    try {
      await page.waitForFunction(() =>
        document.getElementById("live")?.textContent?.endsWith("scenario flaky"),
      );
    } finally {
      sim.upstream!.setScenario("outage");
    }
  });

  it("the live timeline gains an operation while the device runs", async () => {
    await page.goto(sim.url);
    await page.locator("#timeline rect.attempt").first().waitFor({ timeout: 15_000 });
    const seen = new Set(await page.$$eval("#timeline text", (t) => t.map((x) => x.textContent)));
    await page.waitForFunction(
      (before) =>
        [...document.querySelectorAll("#timeline text")].some(
          (t) => /^\d+$/.test(t.textContent ?? "") && !before.includes(t.textContent),
        ),
      [...seen],
      // Past the deadline: once 16 operations retry at once (8 s in), the full table takes
      // no new one until the first ends at its 20 s deadline.
      { timeout: 25_000 },
    );
    expect(await timelineRows()).toBeGreaterThan(0);
    // Retries show as several attempt bars in a row, with the waits between them.
    await page.locator("#timeline line.wait").first().waitFor({ state: "attached", timeout: 10_000 });
  });

  it("sets the device password on first setup, then refuses a bad SSID or broker URL and stores good ones", async () => {
    await page.goto(sim.url);
    await view("setup");
    await page.fill("#new-device-password", "correct horse battery");
    await page.click("#password-setup button[type=submit]");
    await page.waitForFunction(
      () => document.getElementById("notice")?.textContent === "Device password: Device password set.",
    );
    expect(sim.password.isSet).toBe(true);
    await page.locator("#unlock").waitFor();

    const before = { ...sim.device.settings.current };
    await page.fill("#ssid", "a-network-name-that-is-far-too-long");
    await page.click("#settings button[type=submit]");
    await page.locator("#ssid-error").waitFor();
    await page.locator("#notice").waitFor();
    expect(await page.textContent("#ssid-error")).toContain("SSID must be 1 to 32 bytes");
    expect(await page.textContent("#notice")).toContain("Nothing was stored");
    expect(sim.device.settings.current).toEqual(before);

    await page.fill("#ssid", "<b>café</b>");
    await page.click("#settings button[type=submit]");
    await page.waitForFunction(() =>
      document.getElementById("notice")?.textContent?.endsWith(": Settings saved; restarting."),
    );
    expect(sim.device.settings.current.ssid).toBe("<b>café</b>");
    await page.waitForFunction(() => document.getElementById("stored-ssid")?.textContent === "<b>café</b>");

    // The broker fields: an unparseable URL marked and nothing stored; then a good one shown,
    // its password only as set, and the password field left empty.
    const saved = { ...sim.device.settings.current };
    await page.fill("#brokerUrl", "mqtt//192.168.1.10");
    await page.click("#settings button[type=submit]");
    await page.locator("#brokerUrl-error").waitFor();
    expect(await page.textContent("#brokerUrl-error")).toContain(
      "Broker URL must be empty or mqtt://host:port",
    );
    expect(sim.device.settings.current).toEqual(saved);
    await page.fill("#brokerUrl", "mqtt://192.168.1.10:1883");
    await page.fill("#brokerPassword", "broker-secret");
    await page.click("#settings button[type=submit]");
    await page.waitForFunction(
      () => document.getElementById("stored-broker")?.textContent === "mqtt://192.168.1.10:1883",
    );
    expect(await page.textContent("#stored-broker-password")).toBe("set");
    expect(sim.device.settings.current.brokerPassword).toBe("broker-secret");
    expect(await page.content()).not.toContain("broker-secret");
  });

  it("refuses a change with a wrong device password", async () => {
    await page.goto(sim.url);
    await view("setup");
    await page.fill("#device-password", "not the password");
    await page.click("#upload-now");
    await page.waitForFunction(() => document.getElementById("notice")?.className === "error");
    // The banner names the action that raised it.
    expect(await page.textContent("#notice")).toMatch(
      /^[^:]+: Wrong or missing device password; nothing was changed\.$/,
    );
  });

  it("holds a policy's breaker open from the Status view and releases it, a probe following, with the device password only", async () => {
    const api = () => sim.device.running.api;
    /** Chooses `action` for the uploads' breaker, with `password`, and waits for the banner. */
    const breaker = async (action: string, password: string) => {
      await page.goto(sim.url);
      await view("setup");
      await page.fill("#device-password", password);
      await view("status");
      await page.selectOption("#breaker-policy", "0");
      await page.selectOption("#breaker-action", action);
      await page.click("#breaker-control button[type=submit]");
      await page.locator("#notice").waitFor();
      return page.textContent("#notice");
    };
    expect(await breaker("hold", "not the password")).toMatch(/Wrong or missing device password/);
    expect(api().breakerState(0)).not.toBe(Breaker.ISOLATED);

    expect(await breaker("hold", "correct horse battery")).toMatch(/Breaker held open/);
    expect(api().breakerState(0)).toBe(Breaker.ISOLATED);
    const probes = api().counter(Counter.PROBES);
    expect(await breaker("release", "correct horse battery")).toMatch(/Breaker released/);
    expect(api().breakerState(0)).not.toBe(Breaker.ISOLATED);
    // The uploads that waited: the first to start after the release is the probe.
    await expect.poll(() => api().counter(Counter.PROBES), { timeout: 10_000 }).toBeGreaterThan(probes);
    expect(await breaker("release", "correct horse battery")).toMatch(/not held; nothing was changed/);
  });

  it("the playground draws the waits of the default policy, computed by the module", async () => {
    await page.goto(sim.url);
    await view("policy");
    await page.waitForSelector("body[data-playground=ready]");
    // It starts from the device's policy and says so; edited, it is a draft that Apply offers.
    await page.waitForFunction(() =>
      document.getElementById("pg-source")?.textContent?.startsWith("The device's"),
    );
    expect(await page.isHidden("#pg-apply")).toBe(true);
    expect(await page.inputValue("#policy-form input[name=maxAttempts]")).toBe("100");
    await examplePolicy();
    await page.waitForFunction(() =>
      document.getElementById("pg-source")?.textContent?.startsWith("A draft"),
    );
    expect(await page.isVisible("#pg-apply")).toBe(true);
    expect(await page.textContent("#pg-summary")).toBe(
      "At worst an operation takes 49.0 s, when every attempt times out and every wait reaches its longest; it retries 5 times at most.",
    );
    const rows = await page.$$eval("#pg-table tbody tr", (trs) =>
      trs.map((tr) => [...tr.children].map((td) => Number(td.textContent))),
    );
    expect(rows.map((r) => r.slice(0, 2))).toEqual([
      [1, 1000],
      [2, 2000],
      [3, 4000],
      [4, 8000],
      [5, 16000],
    ]);
    // Full jitter: every draw between 0 and the ceiling, and not all alike.
    for (const [, ceiling, min, median, max] of rows) {
      expect(0 <= min && min <= median && median <= max && max <= ceiling).toBe(true);
      expect(max).toBeGreaterThan(min);
    }
    expect(await page.$$eval("#pg-waits line.ceiling", (l) => l.length)).toBe(5);
    expect(await page.$$eval("#pg-waits rect.spread", (r) => r.length)).toBe(5);
    // Fails 3 times, then succeeds: four attempt bars, three waits, SUCCEEDED.
    expect(await page.$$eval("#pg-timeline rect.attempt", (r) => r.length)).toBe(4);
    expect(await page.textContent("#pg-timeline text.end")).toBe("SUCCEEDED");
  });

  it("the playground names a refused field with its value and range, before the module does", async () => {
    const shows = (text: string) =>
      page.waitForFunction((t) => document.getElementById("pg-error")?.textContent === t, text);
    await page.fill("#policy-form input[name=maxAttempts]", "256");
    await shows("attempts at most is 256; allowed: 0 to 255");
    await page.fill("#policy-form input[name=maxAttempts]", "6");
    await page.fill("#policy-form input[name=attemptTimeout]", "2147483648");
    await shows("each attempt times out after is 2147483648; allowed: 1 to 2147483647");
    await page.fill("#policy-form input[name=attemptTimeout]", "3000");
    await page.fill("#policy-form input[name=baseDelay]", "99999");
    await shows("first wait is 99999; allowed: 0 to the longest wait (16000)");
    await page.fill("#policy-form input[name=baseDelay]", "1000");
    await page.fill("#policy-form input[name=attemptTimeout]", "3000");
    await page.waitForFunction(() => document.getElementById("pg-error")?.hidden);
  });

  it("the copy buttons give the texts docs/device.md shows", async () => {
    const doc = readFileSync(`${ROOT}docs/device.md`, "utf8");
    const block = (lang: string) => new RegExp("```" + lang + "\\n([^`]*)```").exec(doc)![1];
    await page.goto(sim.url);
    await view("policy");
    await page.waitForSelector("body[data-playground=ready]");
    await examplePolicy();
    for (const [button, lang] of [
      ["#copy-c", "c"],
      ["#copy-json", "json"],
    ]) {
      await page.click(button);
      await page.waitForFunction(
        (text) => document.getElementById("copied")?.textContent === text,
        block(lang),
      );
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(block(lang));
    }
  });

  it("keeps answering during the outage while the device retries", async () => {
    await page.goto(sim.url);
    const retriesBefore = sim.device.running.api.counter(Counter.RETRIES_SCHEDULED);
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
    expect(sim.device.running.api.counter(Counter.RETRIES_SCHEDULED)).toBeGreaterThan(retriesBefore);
  });
});
