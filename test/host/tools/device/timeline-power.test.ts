// The live timeline across a deep sleep and a reboot, in real headless Chromium: the
// tick starts again at every boot, so the page places events on the device's RTC
// (events[].wallMs), draws the sleep and the boots as marks, and puts the operations
// before the sleep to its left and those after the reboot to its right, not all at "now".
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Simulation } from "../../../../host/tools/src/device/simulation.js";
import { openDevicePage } from "../../../helpers/browser.js";
import { QUICK, waitFor } from "../../../helpers/device.js";

let sim: Simulation;
let page: Page;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ sim, page, close } = await openDevicePage({
    port: 0,
    scenario: "flaky",
    policy: QUICK,
    uploadEveryMs: 1000,
  }));
}, 30_000);

afterAll(() => close?.());

/** The x of each mark of a kind, and of each attempt bar, as drawn. */
const drawn = () =>
  page.$$eval("#timeline", ([svg]) => {
    const xs = (selector: string) =>
      [...svg.querySelectorAll(selector)].map((n) => Number(n.getAttribute("x1") ?? n.getAttribute("x")));
    return { boots: xs("line.mark.boot"), sleeps: xs("line.mark.sleep"), bars: xs("rect.attempt") };
  });

test("operations before a sleep and after a reboot sit on either side of its marks", async () => {
  await page.goto(sim.url);
  await page.locator("#timeline rect.attempt").first().waitFor({ timeout: 15_000 });
  await new Promise((r) => setTimeout(r, 1500)); // some operations before the sleep
  sim.device.requests.deepSleep(2000);
  await waitFor("the wake", () => sim.device.boot.kind === "deep sleep");
  await new Promise((r) => setTimeout(r, 2500)); // an upload or two between the wake and the reboot
  sim.device.requests.reboot();
  await waitFor("the reboot", () => sim.device.boot.kind === "reboot");
  await new Promise((r) => setTimeout(r, 2500)); // operations after it, and a few polls
  const d = await drawn();
  console.log(`timeline marks and bars (x): ${JSON.stringify(d)}`);
  expect(d.sleeps).toHaveLength(1);
  // The wake and the reboot (the power-on too, while it is on the chart), in time order.
  expect(d.boots.length).toBeGreaterThanOrEqual(2);
  const [sleep] = d.sleeps;
  const [wake, reboot] = d.boots.filter((x) => x > sleep);
  expect(wake).toBeGreaterThan(sleep);
  expect(reboot).toBeGreaterThan(wake);
  // The sleep is shaded up to the wake, and no bar starts inside it.
  const asleep = await page.$eval("#timeline rect.asleep", (r) => Number(r.getAttribute("width")));
  expect(asleep).toBeCloseTo(wake - sleep, 0);
  expect(d.bars.filter((x) => x > sleep + 1 && x < wake - 1)).toEqual([]);
  // Bars on all three stretches: before the sleep, between the wake and the reboot, after it.
  expect(d.bars.some((x) => x < sleep)).toBe(true);
  expect(d.bars.some((x) => x > wake && x < reboot)).toBe(true);
  expect(d.bars.some((x) => x > reboot)).toBe(true);
}, 60_000);

test("a row's label is the whole operation id, with the id on hover", async () => {
  const ids = sim.device.uploads.recent.map((e) => String(e.operationId));
  const labels = await page.$$eval("#timeline text.row-label", (t) =>
    t.map((x) => [x.childNodes[0].textContent, x.querySelector("title")?.textContent]),
  );
  expect(labels.length).toBeGreaterThan(0);
  for (const [shown, title] of labels) expect(shown).toBe(title);
  expect(labels.some(([shown]) => ids.includes(shown ?? ""))).toBe(true);
});

test("live operations left out of a poll are counted on by the tick, as a full status has them", async () => {
  // A hanging upstream: operations stay live, counting down to their deadlines.
  await sim.upstream!.setScenario("hang");
  await waitFor("live operations", () => sim.device.uploads.ops.size >= 2);
  const rows = () =>
    page.$$eval("#operations tbody tr", (trs) =>
      (trs as HTMLTableRowElement[])
        .filter((r) => r.cells.length > 5)
        .map((r) => [Number(r.cells[0].textContent), Number.parseInt(r.cells[5].textContent ?? "", 10)]),
    );
  // The page has drawn live ones (a loaded machine may take more than a poll to, and rows of
  // operations that ended before the hang may still stand), then several polls leave them out.
  const live = () => new Set([...sim.device.uploads.ops.values()].map((op) => op.operationId));
  await waitFor(
    "the page's rows of live operations",
    async () => ((await rows()).some(([id]) => live().has(id)) ? true : undefined),
    10_000,
  );
  await new Promise((r) => setTimeout(r, 2000));
  // The page's rows and a full status taken together, until they share an operation (on a
  // loaded machine one may have ended between the two reads).
  const sample = async () => {
    const shown = await rows();
    const full = (await (await fetch(new URL("/status.json", sim.url))).json()) as {
      operations: { operationId: number; deadlineInMs: number }[];
    };
    const deadlines = new Map(full.operations.map((o) => [o.operationId, o.deadlineInMs]));
    const both = shown.filter(([id]) => deadlines.has(id));
    return both.length > 0 ? { both, deadlines } : undefined;
  };
  const { both, deadlines } = await waitFor("rows the device still has live", sample, 10_000);
  // The page's deadline is at most a poll (and this fetch) behind the device's.
  for (const [id, deadline] of both)
    expect([id, Math.abs(deadline - deadlines.get(id)!) < 1500]).toEqual([id, true]);
}, 30_000);
