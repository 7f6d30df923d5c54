// A simulated device and headless Chromium on a fresh profile, as the browser tests open
// them before their cases, and one close that undoes it all.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../../scripts/chromium.js";
import {
  startSimulation,
  type Simulation,
  type SimulationOptions,
} from "../../host/tools/src/device/simulation.js";

export interface DevicePage {
  sim: Simulation;
  context: BrowserContext;
  /** One page at 1280x800, not yet on the device's URL. */
  page: Page;
  close(): Promise<void>;
}

/** Starts a device with `options` and opens a page for it, granted `permissions` on the
 * device's origin. What was opened is closed again if a later step fails. */
export async function openDevicePage(
  options: SimulationOptions,
  permissions: string[] = [],
): Promise<DevicePage> {
  const sim = await startSimulation(options);
  const profile = mkdtempSync(join(tmpdir(), "tickretry-chromium-"));
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close();
    await sim.close();
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    context = await launchChromium(profile, { width: 1280, height: 800 });
    if (permissions.length) await context.grantPermissions(permissions, { origin: new URL(sim.url).origin });
    return { sim, context, page: await context.newPage(), close };
  } catch (e) {
    await close();
    throw e;
  }
}
