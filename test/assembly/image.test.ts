// The image save writes, read as docs/ABI.md describes it (Image format): the header, the
// CRC-32 (checked with zlib's), every body field in its place, ticks relative to now,
// sizes, and what save does before init.
import { describe, expect, test } from "vitest";
import {
  ABI_VERSION,
  Breaker,
  Counter,
  Error as Err,
  Image,
  Limit,
  State,
} from "../../host/library/src/generated/abi.js";
import { saveImage } from "../../host/library/src/image.js";
import { create, instantiate } from "../../host/library/src/tickretry.js";
import { tickAfter, ticksUntil } from "../../host/library/src/ticks.js";
import { decodeImage } from "../helpers/image.js";
import { setPolicy } from "../helpers/policies.js";
import { busyScene } from "../helpers/scene.js";

describe("save writes the image docs/ABI.md describes", () => {
  const scene = busyScene();
  const { api, handles } = scene;
  const now = tickAfter(scene.now, 3); // a save later than the last call: spans count from it
  const image = saveImage(api, now) as Uint8Array;
  const decoded = decodeImage(image);

  test("header: format, ABI version, length; the CRC-32 of the rest closes it", () => {
    expect(decoded.format).toBe(Image.FORMAT_VERSION);
    expect(decoded.abi).toBe(ABI_VERSION);
    expect(decoded.length).toBe(image.length);
    expect(decoded.crcMatches).toBe(true);
    expect(api.imageAddress() + Image.AREA_BYTES).toBeLessThanOrEqual(Limit.MEMORY_LIMIT);
  });

  test("every body field in its place", () => {
    const f = decoded.fields;
    let at = 0;
    const next = () => f[at++];
    expect(next()).toBe(0); // clockAhead: no step back
    const nextOperationId = next();
    at += 4; // PRNG: checked by the round trips in test/assembly/restore.test.ts
    const budget = [500000, api.tokens(), 5000, 10000, 0, 0, 0, 1000, 1];
    expect(f.slice(at, at + 9)).toEqual(budget);
    at += 9;
    for (let id = 0; id < Counter.COUNT; id++) expect(next()).toBe(api.counter(id));
    // No session fields, maxRetryAfter 0 (maxDelay), a CLOSED breaker with nothing counted
    // (breakEnds 0: not OPEN).
    const rest = [0, 0, 0, 0, 0, 0, Breaker.CLOSED, 0, 0, 0];
    const policies = new Map([
      [0, [5, 5, 2000, 300, 4000, 1000, 60000, ...rest]], // flags: jitter NONE | IDEMPOTENT
      [3, [3, 1, 1500, 700, 700, 1000, 0, ...rest]],
    ]);
    for (let id = 0; id < Limit.POLICIES; id++) {
      const isSet = next();
      expect(isSet).toBe(policies.has(id) ? 1 : 0);
      if (isSet) expect(f.slice(at, (at += 17))).toEqual(policies.get(id));
    }
    const bySlot = new Map(handles.filter((h) => api.slot(h) >= 0).map((h) => [api.slot(h), h]));
    for (let slot = 0; slot < Limit.OPERATIONS; slot++) {
      const generation = next();
      if (slot >= 5) {
        expect(generation).toBe(0);
        continue;
      }
      const h = bySlot.get(slot)!;
      expect(generation).toBe(h >> Limit.SLOT_BITS);
      expect(next()).toBe(api.state(h));
      const record = f.slice(at, (at += 12));
      expect(record.slice(1, 7)).toEqual([
        api.attempt(h),
        api.lastOutcome(h),
        api.endReason(h),
        api.opFlags(h),
        api.operationId(h),
        ticksUntil(now, api.nextAttemptAt(h)) >>> 0,
      ]);
      expect(record.slice(7, 9)).toEqual([
        ticksUntil(now, api.attemptDeadline(h)) >>> 0,
        ticksUntil(now, api.deadline(h)) >>> 0,
      ]);
      expect(record[11]).toBe(api.backoffLevel(h));
    }
    expect(at).toBe(f.length);
    expect(api.operationId(api.begin(0, now))).toBe(nextOperationId);
  });

  test("the same state saved at the same now gives the same bytes", () => {
    const again = busyScene();
    expect(saveImage(again.api, now)).toEqual(saveImage(busyScene().api, now));
  });
});

describe("image sizes", () => {
  /** An instance with `operations` live operations and `policies` policies. */
  function filled(operations: number, policies: number): Uint8Array {
    const api = create(3n);
    for (let id = 0; id < policies; id++) setPolicy(api, id, { deadline: id ? 0 : 90000 });
    const now = 0xfffffff0;
    for (let i = 0; i < operations; i++) api.begin(i % policies, now);
    for (let h = api.poll(now); h >= 0; h = api.poll(now));
    return saveImage(api, tickAfter(now, 10)) as Uint8Array;
  }

  test("1 operation and 1 policy: at most 160 bytes", () => {
    expect(filled(1, 1).length).toBeLessThanOrEqual(160);
  });

  test("16 operations and 8 policies: at most 1024 bytes, within the image area", () => {
    expect(filled(16, 8).length).toBeLessThanOrEqual(Math.min(1024, Image.AREA_BYTES));
  });

  test("the widest image the format allows fits the image area", () => {
    // Every field at its widest varint (docs/ABI.md): 5 bytes for a u32, 3 for a generation,
    // 2 for values up to 255 or 1000, 1 for the small ones.
    const words = 2 + 5 + 4 * 5 + 8 * 5 + 1 + Counter.COUNT * 5;
    // isSet, maxAttempts, flags, seven spans, breakAfter, three spans; the breaker's state,
    // failures, opens and end.
    const policy = 1 + 2 + 1 + 7 * 5 + 2 + 3 * 5 + (1 + 2 + 2 + 5);
    // generation, state, policy, attempt (31 bits), outcome, end reason, flags, the id, three
    // ticks, previous wait and retry cost, the level.
    const operation = 3 + 1 + 1 + 5 + 1 + 1 + 1 + 6 * 5 + 2;
    const widest =
      Image.HEADER_BYTES + words + Limit.POLICIES * policy + Limit.OPERATIONS * operation + Image.CRC_BYTES;
    expect(widest).toBe(1424);
    expect(widest).toBeLessThanOrEqual(Image.AREA_BYTES);
  });
});

describe("save", () => {
  test("before init: NOT_INITIALIZED, nothing written", () => {
    const api = instantiate();
    expect(api.save(5)).toBe(Err.NOT_INITIALIZED);
    expect([...new Uint8Array(api.memory.buffer, api.imageAddress(), 8)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  test("applies what is due first: a wait that ran out is saved DUE", () => {
    const api = create(1n);
    setPolicy(api, 0, { baseDelay: 100, maxDelay: 100 });
    const h = api.begin(0, 10);
    api.poll(10);
    api.report(h, 1, 2, 0, 10);
    expect(api.state(h)).toBe(State.WAITING);
    const image = decodeImage(saveImage(api, 500) as Uint8Array);
    expect(api.opFlags(h) & 1).toBe(1);
    expect(image.crcMatches).toBe(true);
  });

  test("a clock ahead of now (a small step back) is stored as clockAhead", () => {
    const api = create(1n);
    setPolicy(api, 0);
    api.begin(0, 1000);
    const image = decodeImage(saveImage(api, 990) as Uint8Array);
    expect(image.fields[0]).toBe(10);
  });
});
