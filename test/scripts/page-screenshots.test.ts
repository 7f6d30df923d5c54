// The screenshots in docs/device.md are of the page as it is: docs/page-screenshots.json
// names the sha256 of every page source they were taken from (npm run docs:page), and
// each image is a PNG of the size recorded. Pixels are not compared: fonts and the live
// values differ between machines and runs; the sources do not.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { MANIFEST, SHOTS, sourceHashes } from "../../scripts/docs/page-screenshots.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("the committed screenshots were taken from the current page sources (else: npm run docs:page)", () => {
  const manifest = JSON.parse(readFileSync(ROOT + MANIFEST, "utf8"));
  expect(manifest.sources).toEqual(sourceHashes());
  expect(manifest.shots).toEqual(SHOTS);
});

it("each screenshot is a PNG of its recorded size, shown in docs/device.md", () => {
  const doc = readFileSync(`${ROOT}docs/device.md`, "utf8");
  for (const shot of SHOTS) {
    const png = readFileSync(ROOT + shot.file);
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([shot.width, shot.height]);
    expect(doc).toContain(`(${shot.file.replace("docs/", "")})`);
  }
});
