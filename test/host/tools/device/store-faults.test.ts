// The state store under what issue 20 found (defects 12, 13, 14 and 17), on real files:
// the state, password and settings files are the owner's only; saved settings come back
// after a restart; a full disk (writes to /dev/full, which the kernel answers ENOSPC) is
// counted, shown and retried while the device runs on and sends nothing it has not
// stored; and a state whose pending list does not match its image is refused in words.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_BROKER } from "../../../../host/tools/src/device/app/broker.js";
import { Device } from "../../../../host/tools/src/device/device.js";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { fileStore, StateFileError } from "../../../../host/tools/src/device/app/kept.js";
import { defaultSettings } from "../../../../host/tools/src/device/app/settings.js";
import { fileLog } from "../../../../host/tools/src/device/app/readings.js";
import { QUICK, waitFor } from "../../../helpers/device.js";
import { post, setUp } from "../../../helpers/page.js";

let sim: Simulation | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});
const dir = mkdtempSync(join(tmpdir(), "tickretry-store-"));
const GOOD = { ssid: "home", password: "12345678", upstreamUrl: "http://127.0.0.1:1/upload" };

async function boot(path: string, options = {}) {
  sim = await startSimulation({
    port: 0,
    scenario: "outage",
    policy: QUICK,
    store: fileStore(path),
    ...options,
  });
  return sim;
}

describe("the state store", () => {
  it("creates every file it writes for its owner only (0600): state, password, settings, lock, readings log", async () => {
    const path = join(dir, "modes", "state.json");
    const logPath = join(dir, "modes", "readings.log");
    const s = await boot(path, { uploadEveryMs: 50, log: fileLog(logPath) });
    await setUp(s);
    expect((await post(s, "/settings", GOOD)).status).toBe(200);
    await waitFor("a state write and a log line", () => existsSync(path) && existsSync(logPath));
    expect(readdirSync(join(dir, "modes")).sort()).toEqual(
      ["readings.log", "state.json", "state.json.lock", "state.json.password", "state.json.settings"].concat(
        existsSync(`${path}.tmp`) ? ["state.json.tmp"] : [],
      ),
    );
    for (const file of readdirSync(join(dir, "modes"))) {
      expect([file, statSync(join(dir, "modes", file)).mode & 0o777]).toEqual([file, 0o600]);
    }
  });

  it("tightens a readings log an older device left readable to all (issue 34, item 12)", async () => {
    const logPath = join(dir, "old-log", "readings.log");
    mkdirSync(join(dir, "old-log"));
    writeFileSync(logPath, "", { mode: 0o644 });
    chmodSync(logPath, 0o644);
    const s = await boot(join(dir, "old-log", "state.json"), { uploadEveryMs: 50, log: fileLog(logPath) });
    await setUp(s);
    await waitFor("a log line", () => statSync(logPath).size > 0);
    expect(statSync(logPath).mode & 0o777).toBe(0o600);
  });

  it("keeps saved settings across a process restart", async () => {
    const path = join(dir, "settings", "state.json");
    const s = await boot(path, { uploadEveryMs: 0 });
    await setUp(s);
    expect((await post(s, "/settings", GOOD)).status).toBe(200);
    await s.close();
    const again = await boot(path, { uploadEveryMs: 0 });
    expect(again.device.settings.current).toEqual({ ...DEFAULT_BROKER, ...GOOD });
    const status = await (await fetch(new URL("/status.json", again.url))).json();
    expect(status.settings).toMatchObject({ ssid: "home", passwordSet: true, upstreamUrl: GOOD.upstreamUrl });
  });

  it("never pins the embedded upstream's random port: saved as shown, the next start uploads to its new upstream (issue 34, item 4)", async () => {
    const path = join(dir, "pinned", "state.json");
    const s = await boot(path, { uploadEveryMs: 0, scenario: "healthy" });
    await setUp(s);
    const shown = s.upstream!.url;
    expect((await post(s, "/settings", { ...GOOD, upstreamUrl: shown })).status).toBe(200);
    await s.close();
    const again = await boot(path, { uploadEveryMs: 50, scenario: "healthy" });
    expect(again.upstream!.url).not.toBe(shown);
    expect(again.device.settings.current).toMatchObject({ ssid: "home", upstreamUrl: again.upstream!.url });
    await waitFor("uploads at the new upstream", () => again.upstream!.stats().stored > 2);
    // A URL typed for another upstream stays pinned, as the owner chose it.
    expect((await post(again, "/settings", GOOD)).status).toBe(200);
    await again.close();
    expect((await boot(path, { uploadEveryMs: 0 })).device.settings.current.upstreamUrl).toBe(
      GOOD.upstreamUrl,
    );
  });

  it("refuses a settings file with a flipped bit, whichever, and runs on its defaults saying why (issue 34, item 8)", async () => {
    const path = join(dir, "flips", "state.json");
    const s = await boot(path, { uploadEveryMs: 0 });
    await setUp(s);
    const broker = { brokerUrl: "mqtt://127.0.0.1:1883", brokerUsername: "dev", brokerPassword: "devpass" };
    expect((await post(s, "/settings", { ...GOOD, ...broker })).status).toBe(200);
    await s.close();
    const file = `${path}.settings`;
    const good = readFileSync(file);
    const store = fileStore(path);
    const saved = store.settings.load();
    let refused = 0;
    for (let bit = 0; bit < good.length * 8; bit++) {
      const flipped = Buffer.from(good);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      writeFileSync(file, flipped);
      try {
        // Only a flip in the trailing newline's whitespace may read back, and then as it was.
        expect([bit, store.settings.load()]).toEqual([bit, saved]);
      } catch (err) {
        if (!(err instanceof StateFileError)) throw err;
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual((good.length - 1) * 8);
    const damaged = Buffer.from(good);
    damaged[good.indexOf("devpass")] ^= 0x01;
    writeFileSync(file, damaged);
    const again = await boot(path, { uploadEveryMs: 0 });
    expect(again.device.settings.refused).toBe(
      `settings file ${file}: its checksum does not match its content (damaged); ` +
        "the device runs on its defaults until the form saves new settings",
    );
    expect(again.device.settings.current).toEqual({
      ...DEFAULT_BROKER,
      ...defaultSettings(again.upstream!.url),
    });
    expect(readFileSync(file)).toEqual(damaged); // left as it was
  });

  it("runs on through a full disk: counts the refused writes, sends nothing unstored, retries", async () => {
    const path = join(dir, "full", "state.json");
    const s = await boot(path, { uploadEveryMs: 50, scenario: "healthy" });
    await setUp(s);
    await waitFor("uploads", () => s.upstream!.stats().stored > 2);
    symlinkSync("/dev/full", `${path}.tmp`);
    symlinkSync("/dev/full", `${path}.settings.tmp`);
    await waitFor("refused writes", () => s.device.kept.figures.writeFailures > 20);
    const requests = s.upstream!.stats().requests;
    const settings = await post(s, "/settings", { ...GOOD, ssid: "not stored" });
    expect(settings.status).toBe(507);
    expect((await settings.json()).error).toContain("the device could not write its flash");
    expect(s.device.settings.current.ssid).not.toBe("not stored");
    const status = await (await fetch(new URL("/status.json", s.url))).json();
    expect(status.store.writeFailures).toBeGreaterThan(3);
    // Nothing new was sent while no state could be stored.
    expect(s.upstream!.stats().requests).toBe(requests);
    rmSync(`${path}.tmp`);
    rmSync(`${path}.settings.tmp`);
    const stored = s.upstream!.stats().stored;
    await waitFor("uploads again", () => s.upstream!.stats().stored > stored + 2);
  });

  it("refuses a state whose pending list does not match the operations in its image", async () => {
    const path = join(dir, "emptied", "state.json");
    const s = await boot(path, { uploadEveryMs: 50 });
    await waitFor("operations stored", () => (fileStore(path).load()?.pending.length ?? 0) > 2);
    await s.close();
    sim = undefined;
    const store = fileStore(path);
    const state = store.load()!;
    store.save({ ...state, pending: [] }); // sealed again: only the cross-check can tell
    expect(() => new Device({ upstreamUrl: "http://127.0.0.1:1/", store })).toThrow(StateFileError);
    expect(() => new Device({ upstreamUrl: "http://127.0.0.1:1/", store })).toThrow(
      /the image holds \d+ operations, field pending 0/,
    );
  });
});
