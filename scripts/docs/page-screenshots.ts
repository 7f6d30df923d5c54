// `npm run docs:page`: screenshots of the setup page for docs/device.md, taken in headless
// Chromium from a simulated device that has run for a few seconds: the status at 390x844
// and 1280x800, the policy playground at 1280x800. docs/page-screenshots.json records the
// sha256 of every file of boards/page/ the images were taken from; test/scripts/page-screenshots.test.ts
// fails when a source has changed since (pixels are not compared: fonts and live values
// differ between machines and runs, the sources do not).
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pageFiles, ROOT } from "../embed/page-files.js";
import { startSimulation } from "../../host/tools/src/device/simulation.js";
import { launchChromium } from "../chromium.js";

export const MANIFEST = "docs/page-screenshots.json";

export const SHOTS = [
  { file: "docs/page-status-390.png", width: 390, height: 844, view: "status" },
  { file: "docs/page-status-1280.png", width: 1280, height: 800, view: "status" },
  { file: "docs/page-policy-1280.png", width: 1280, height: 800, view: "policy" },
];

/** sha256 of each of the page's own files (boards/page/: what the page looks like), by file. */
export function sourceHashes(): Record<string, string> {
  return Object.fromEntries(
    [...pageFiles().values()]
      .filter((a) => a.file.startsWith("boards/page/"))
      .map((a) => [a.file, createHash("sha256").update(a.raw).digest("hex")]),
  );
}

async function main(): Promise<void> {
  const sim = await startSimulation({ port: 0, scenario: "flaky", uploadEveryMs: 700, seed: 42n });
  const profile = mkdtempSync(join(tmpdir(), "tickretry-shots-"));
  const context = await launchChromium(profile);
  try {
    const page = await context.newPage();
    console.log("page-screenshots: letting the device run for 8 s");
    await new Promise((r) => setTimeout(r, 8000));
    for (const shot of SHOTS) {
      await page.setViewportSize({ width: shot.width, height: shot.height });
      await page.goto(sim.url);
      await page.locator("#timeline rect.attempt").first().waitFor({ timeout: 15_000 });
      if (shot.view === "policy") {
        await page.click("nav button[data-view=policy]");
        await page.waitForSelector("body[data-playground=ready]");
        await page.locator("#pg-waits").scrollIntoViewIfNeeded();
      }
      await page.screenshot({ path: ROOT + shot.file });
      console.log(`page-screenshots: wrote ${shot.file}`);
    }
  } finally {
    await context.close();
    await sim.close();
    rmSync(profile, { recursive: true, force: true });
  }
  writeFileSync(ROOT + MANIFEST, `${JSON.stringify({ sources: sourceHashes(), shots: SHOTS }, null, 2)}\n`);
  console.log(`page-screenshots: wrote ${MANIFEST}`);
}

if (process.argv[1]?.endsWith("page-screenshots.ts")) await main();
