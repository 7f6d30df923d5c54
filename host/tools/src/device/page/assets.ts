// The setup page's files as boards/page/manifest.json lists them (boards/page/, the
// AssemblyScript loader and the ABI constants the playground reads), served by the
// simulated device; scripts/embed/page.ts embeds the same list into the firmware.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { asset } from "../../assets.js";

export interface PageAsset {
  /** URL path on the device. */
  path: string;
  /** Source file from the repository root, or the npm package whose entry is served. */
  file: string;
  type: string;
  /** Where the tools read it: their copy of the repository file, or the package's entry. */
  source: string;
}

interface ManifestAsset {
  path: string;
  file?: string;
  package?: string;
  type: string;
}

const manifest = JSON.parse(readFileSync(asset("boards/page/manifest.json"), "utf8")) as {
  assets: ManifestAsset[];
};

export const PAGE_ASSETS: readonly PageAsset[] = manifest.assets.map((a) => ({
  path: a.path,
  file: a.file ?? a.package!,
  type: a.type,
  source: a.package !== undefined ? fileURLToPath(import.meta.resolve(a.package)) : asset(a.file!),
}));

export interface LoadedAsset extends PageAsset {
  raw: Buffer;
  gzip: Buffer;
}

/** Every asset read from its source, with its gzip form (what the firmware holds). */
export function loadAssets(): Map<string, LoadedAsset> {
  return new Map(
    PAGE_ASSETS.map((a) => {
      const raw = readFileSync(a.source);
      return [a.path, { ...a, raw, gzip: gzipSync(raw, { level: 9 }) }];
    }),
  );
}
