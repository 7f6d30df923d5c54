// The firmware's generated page header, status keys and build key are current: the page
// is compared by its decompressed bytes (gzip's output may differ between zlib versions,
// the page may not), the rest as text. `npm run embed` regenerates them.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { pageFiles } from "../../scripts/embed/page-files.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("boards/esp32/src/generated/setup_page.h holds every page file, gzip-compressed, as the simulator serves it", () => {
  const header = readFileSync(`${ROOT}boards/esp32/src/generated/setup_page.h`, "utf8");
  const arrays = new Map(
    [...header.matchAll(/static const uint8_t (page_asset_\d+)\[(\d+)\] = \{([^}]*)\}/g)].map((m) => {
      const bytes = Buffer.from(m[3].match(/0x[0-9a-f]{2}/g)!.map((h) => parseInt(h, 16)));
      expect(bytes.length).toBe(Number(m[2]));
      return [m[1], bytes];
    }),
  );
  const files = pageFiles();
  const table = [...header.matchAll(/\{"([^"]+)", "([^"]+)", (page_asset_\d+), (\d+)u\}/g)];
  expect(table.map((m) => [m[1], m[2]])).toEqual([...files.values()].map((a) => [a.path, a.type]));
  for (const [, path, , name, length] of table) {
    const asset = files.get(path)!;
    expect(arrays.get(name)!.length).toBe(Number(length));
    expect([path, gunzipSync(arrays.get(name)!).equals(asset.raw)]).toEqual([path, true]);
  }
});

it("npm run embed has nothing to write (--check)", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/embed/page.ts", "--check"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
});

it("the build key compiled into the firmware is boards/keys/build-key.pub", () => {
  const header = readFileSync(`${ROOT}boards/esp32/src/generated/tickretry_build_key.h`, "utf8");
  const bytes = header
    .slice(header.indexOf("{"))
    .match(/0x[0-9a-f]{2}/g)!
    .map((h) => h.slice(2));
  expect(bytes.join("")).toBe(readFileSync(`${ROOT}boards/keys/build-key.pub`, "utf8").trim());
  execFileSync("gcc", [
    "-fsyntax-only",
    "-x",
    "c",
    `${ROOT}boards/esp32/src/generated/tickretry_build_key.h`,
  ]);
});
