// The setup page's files as boards/page/manifest.json lists them, read from the repository
// (a package's entry from where npm put it), each with the gzip form the firmware holds.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface PageFile {
  path: string;
  file: string;
  type: string;
  raw: Buffer;
  gzip: Buffer;
}

interface Entry {
  path: string;
  file?: string;
  package?: string;
  type: string;
}

/** Every page file by URL path, in the manifest's order. */
export function pageFiles(): Map<string, PageFile> {
  const { assets } = JSON.parse(readFileSync(ROOT + "boards/page/manifest.json", "utf8")) as {
    assets: Entry[];
  };
  return new Map(
    assets.map((a) => {
      const source = a.package !== undefined ? fileURLToPath(import.meta.resolve(a.package)) : ROOT + a.file;
      const raw = readFileSync(source);
      const file = a.file ?? a.package!;
      return [a.path, { path: a.path, file, type: a.type, raw, gzip: gzipSync(raw, { level: 9 }) }];
    }),
  );
}
