// The setup page's files: one source in boards/page/ (plus the AssemblyScript loader and
// the ABI constants the playground reads), served by the simulated device and embedded
// gzip-compressed into the firmware by scripts/embed-page.ts. Both serve them at these paths.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

export interface PageAsset {
  /** URL path on the device. */
  path: string;
  /** Source file, from the repository root. */
  file: string;
  type: string;
}

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The loader's ES module wherever npm put it (in the repository or beside an installed package). */
const LOADER = relative(ROOT, fileURLToPath(import.meta.resolve("@assemblyscript/loader")));

export const PAGE_ASSETS: readonly PageAsset[] = [
  { path: "/", file: "boards/page/index.html", type: "text/html; charset=utf-8" },
  { path: "/page.css", file: "boards/page/page.css", type: "text/css; charset=utf-8" },
  { path: "/page.js", file: "boards/page/page.js", type: "text/javascript; charset=utf-8" },
  { path: "/timeline.js", file: "boards/page/timeline.js", type: "text/javascript; charset=utf-8" },
  { path: "/playground.js", file: "boards/page/playground.js", type: "text/javascript; charset=utf-8" },
  { path: "/policy-text.js", file: "boards/page/policy-text.js", type: "text/javascript; charset=utf-8" },
  {
    path: "/loader.js",
    file: LOADER,
    type: "text/javascript; charset=utf-8",
  },
  { path: "/icon.svg", file: "boards/page/icon.svg", type: "image/svg+xml" },
  { path: "/abi.json", file: "abi/constants.json", type: "application/json" },
];

export interface LoadedAsset extends PageAsset {
  raw: Buffer;
  gzip: Buffer;
}

/** Every asset read from its source, with its gzip form (what the firmware holds). */
export function loadAssets(): Map<string, LoadedAsset> {
  return new Map(
    PAGE_ASSETS.map((a) => {
      const raw = readFileSync(ROOT + a.file);
      return [a.path, { ...a, raw, gzip: gzipSync(raw, { level: 9 }) }];
    }),
  );
}
