// Debian's Chromium driven by playwright-core, as the browser test and the screenshot
// command both start it: headless, with a fresh profile, and without the background
// connections this machine's closed network refuses.
import { chromium, type BrowserContext } from "playwright-core";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A persistent context on the empty profile folder `profile`. */
export function launchChromium(
  profile: string,
  viewport?: { width: number; height: number },
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ARGS,
    ...(viewport ? { viewport } : {}),
  });
}
