// The state file on its own: what it writes reads back, a write is atomic (a temporary
// file renamed over the old one; one left by a kill is ignored), one process owns it at a
// time, and a file that is not a state is refused with a message naming the file and the
// field, and left as it was.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  decode,
  fileStore,
  memoryStore,
  StateFileError,
  seal,
  type DeviceState,
} from "../../../../host/tools/src/device/app/kept.js";
import { QUICK } from "../../../helpers/device.js";

const dir = mkdtempSync(join(tmpdir(), "tickretry-state-"));

const STATE: DeviceState = {
  savedAtMs: 1_700_000_000_000,
  image: new Uint8Array([1, 2, 40, 0, 255, 7]),
  policy: QUICK,
  budget: "aws",
  epoch: 3,
  moduleVersion: 0,
  nextReading: 12,
  pending: [{ operationId: 123456, handle: 0x31, reading: { id: 10, celsius: 21 } }],
  queue: [{ id: 11, celsius: 21.1 }],
  dropped: 2,
  outbox: [{ event: "began", reading: 10, operationId: 123456 }],
  writes: 5,
  ended: 3,
};

describe("the state file", () => {
  it("reads back what it wrote, replacing the whole file, and leaves no temporary file", () => {
    const path = join(dir, "a", "state.json");
    const store = fileStore(path);
    expect(store.load()).toBeUndefined();
    const bytes = store.save(STATE);
    expect(bytes).toBe(readFileSync(path).length);
    expect(store.load()).toEqual(STATE);
    const next = { ...STATE, nextReading: 13, queue: [], writes: 6 };
    store.save(next);
    expect(fileStore(path).load()).toEqual(next);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it("ignores a temporary file a kill left behind mid-write", () => {
    const path = join(dir, "torn.json");
    const store = fileStore(path);
    store.save(STATE);
    writeFileSync(`${path}.tmp`, '{"format":1,"savedAt');
    expect(store.load()).toEqual(STATE);
    store.save({ ...STATE, writes: 6 });
    expect(store.load()?.writes).toBe(6);
  });

  it("keeps state in memory the same way when there is no file", () => {
    const store = memoryStore();
    expect(store.load()).toBeUndefined();
    expect(store.save(STATE)).toBeGreaterThan(0);
    expect(store.load()).toEqual(STATE);
  });

  it.each([
    ["not JSON", "{", /not JSON/],
    ["no checksum", JSON.stringify({ format: 2 }), /no checksum/],
    ["another format", seal(JSON.stringify({ format: 1 })), /format 1, this device reads 2/],
    [
      "a bad image",
      seal(JSON.stringify({ format: 2, savedAtMs: 1, image: "!!" })),
      /field image is not base64/,
    ],
  ])("refuses %s", (_what, text, message) => {
    expect(() => decode(text, "x.json")).toThrow(message);
  });

  it("names the first bad field, and refuses an operation id held twice", () => {
    const good = JSON.parse(JSON.stringify({ format: 2, ...STATE, image: "AQI=" }));
    const bad = (change: Record<string, unknown>) => () =>
      decode(seal(JSON.stringify({ ...good, ...change })), "s.json");
    expect(bad({ nextReading: -1 })).toThrow("state file s.json: field nextReading is not a u32");
    expect(bad({ pending: [{ operationId: 1, handle: -3, reading: { id: 1, celsius: 20 } }] })).toThrow(
      "field pending",
    );
    expect(bad({ queue: [{ id: 1 }] })).toThrow("field queue");
    expect(bad({ budget: "lots" })).toThrow("field budget is not firmware, aws or off");
    expect(bad({ policy: { ...QUICK, jitter: "SOME" } })).toThrow("field policy");
    expect(bad({ outbox: [{ event: "vanished", reading: 1 }] })).toThrow("field outbox");
    const twice = [...good.pending, { ...good.pending[0], handle: 0x32 }];
    expect(bad({ pending: twice })).toThrow("holds an operation id twice");
    expect(bad({ queue: [...good.queue, good.queue[0]] })).toThrow("hold a reading twice");
    expect(bad({})).not.toThrow();
  });

  it("refuses a state whose bytes changed anywhere, by its checksum (issue 20, defect 12)", () => {
    const path = join(dir, "flipped.json");
    fileStore(path).save(STATE);
    const bytes = readFileSync(path);
    let accepted = 0;
    // Every bit of the whole file: none may start as other content.
    for (let i = 0; i < bytes.length * 8; i++) {
      const flipped = Buffer.from(bytes);
      flipped[i >> 3] ^= 1 << (i & 7);
      try {
        decode(flipped.toString("latin1"), path);
        accepted++;
      } catch (err) {
        expect(err).toBeInstanceOf(StateFileError);
      }
    }
    expect(accepted).toBe(0);
  });

  it("is one process's alone: a live owner's lock is refused, a killed owner's taken over", async () => {
    const path = join(dir, "owned.json");
    const owner = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const exited = new Promise((resolve) => owner.once("exit", resolve));
    writeFileSync(`${path}.lock`, String(owner.pid));
    expect(() => fileStore(path)).toThrow(
      `state file ${path} is in use by process ${owner.pid} (another device)`,
    );
    owner.kill("SIGKILL");
    await exited;
    fileStore(path).save(STATE);
    expect(readFileSync(`${path}.lock`, "utf8")).toBe(String(process.pid));
  });

  it("leaves a refused file as it was", () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, "[1, 2");
    expect(() => fileStore(path).load()).toThrow(StateFileError);
    expect(readFileSync(path, "utf8")).toBe("[1, 2");
  });
});
