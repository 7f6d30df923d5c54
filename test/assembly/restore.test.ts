// restore (docs/ABI.md, Saving and restoring): round trips into fresh and initialised
// instances, rebasing by elapsed time, deadlines that pass during a sleep, lost attempts,
// and every refusal: each one changes nothing, and no byte string traps.
import { fc, test as propTest } from "@fast-check/vitest";
import { describe, expect, test } from "vitest";
import {
  ABI_VERSION,
  Breaker,
  Counter,
  EndReason,
  Error as Err,
  Image,
  OpFlag,
  Outcome,
  RestoreFlag,
  Result,
  State,
} from "../../host/library/src/generated/abi.js";
import { restoreImage, saveImage } from "../../host/library/src/image.js";
import { create, instantiate } from "../../host/library/src/tickretry.js";
import { tickAfter, ticksUntil } from "../../host/library/src/ticks.js";
import { runs } from "./harness/runs.js";
import { diffSnapshots, snapshot } from "./harness/snapshot.js";
import { drive } from "../helpers/drive.js";
import { decodeImage, encodeImage, withCrc } from "../helpers/image.js";
import { busyScene, type BusyScene } from "../helpers/scene.js";

const START = 0xfffff000;
const OTHER = 0x12345678; // a restore on a tick counter that stands elsewhere

function saved(scene: BusyScene): Uint8Array {
  return saveImage(scene.api, scene.now) as Uint8Array;
}

/** The handles of the scene still valid. */
const valid = (scene: BusyScene) => scene.handles.filter((h) => scene.api.slot(h) >= 0);

describe("a restored image carries on as the saving instance would", () => {
  test.each([
    ["a fresh instance without init", () => instantiate()],
    ["an instance initialised with another seed and policies", () => busyScene(5, 99n).api],
  ])("into %s, on the same tick counter", (_, target) => {
    const original = busyScene(START);
    const image = saved(original);
    const api = target();
    expect(restoreImage(api, image, original.now)).toBe(Result.OK);
    const handles = valid(original);
    expect(drive(api, handles, original.now)).toEqual(drive(original.api, handles, original.now));
  });

  test("on a tick counter that stands elsewhere: ticks move, nothing else", () => {
    const original = busyScene(START);
    const api = instantiate();
    expect(restoreImage(api, saved(original), OTHER)).toBe(Result.OK);
    const handles = valid(original);
    for (const h of handles) {
      expect(api.deadline(h)).toBe(tickAfter(original.api.deadline(h), ticksUntil(original.now, OTHER)));
    }
    expect(drive(api, handles, OTHER)).toEqual(drive(original.api, handles, original.now));
  });

  test.each([1, 299, 2000, 59000, 61000, 2 ** 31 - 1])(
    "elapsed %i: as if the clock had moved on that far without a call",
    (elapsed) => {
      const original = busyScene(START);
      const api = instantiate();
      expect(restoreImage(api, saved(original), OTHER, elapsed)).toBe(Result.OK);
      const handles = valid(original);
      const later = tickAfter(original.now, elapsed);
      original.api.nextDue(later); // the first call after the gap, as restore's own advance
      expect(drive(api, handles, OTHER)).toEqual(drive(original.api, handles, later));
    },
  );

  test("handles stay valid: the same slots and generations", () => {
    const original = busyScene(START);
    const api = instantiate();
    restoreImage(api, saved(original), OTHER);
    for (const h of original.handles) expect(api.slot(h)).toBe(original.api.slot(h));
    expect(snapshot(api, original.handles)).toEqual({
      ...snapshot(original.api, original.handles),
      ...Object.fromEntries(
        original.handles
          .filter((h) => original.api.slot(h) >= 0)
          .flatMap((h) =>
            (["nextAttemptAt", "attemptDeadline", "deadline"] as const).map((q) => [
              `${q}(${h})`,
              tickAfter(original.api[q](h), ticksUntil(original.now, OTHER)),
            ]),
          ),
      ),
    });
  });
});

describe("what happened during the sleep", () => {
  /** One operation under a 10 s deadline, its retry due 2 s after the save. */
  function sleeper(idempotent = true) {
    const api = create(4n);
    api.setPolicy(0, 4, 1000, 2000, 2000, 0, 10000, 1 | (idempotent ? 4 : 0)); // jitter NONE
    const h = api.begin(0, START);
    api.poll(START);
    api.report(h, 1, Outcome.TRANSIENT, 0, START);
    return { api, h, image: saveImage(api, START) as Uint8Array };
  }

  test("a wait that ran out is due at once", () => {
    const { h, image } = sleeper();
    const api = instantiate();
    expect(restoreImage(api, image, OTHER, 2500)).toBe(Result.OK);
    expect(api.opFlags(h) & 1).toBe(1);
    expect(api.nextDue(OTHER)).toBe(0);
    expect(api.poll(OTHER)).toBe(h);
    expect(api.attempt(h)).toBe(2);
  });

  test("an overall deadline that passed ends the operation DEADLINE at restore, handed out once", () => {
    const { h, image } = sleeper();
    const api = instantiate();
    expect(restoreImage(api, image, OTHER, 10000)).toBe(Result.OK);
    expect([api.state(h), api.endReason(h)]).toEqual([State.DONE, EndReason.DEADLINE]);
    expect(api.ended(OTHER)).toBe(h);
    expect(api.ended(OTHER)).toBe(Result.NONE);
  });

  test("a wait still running keeps its remaining span", () => {
    const { h, image } = sleeper();
    const api = instantiate();
    expect(restoreImage(api, image, OTHER, 500)).toBe(Result.OK);
    expect(api.nextDue(OTHER)).toBe(1500);
    expect(api.nextAttemptAt(h)).toBe(tickAfter(OTHER, 1500));
  });
});

describe("attempts in flight at the save", () => {
  /** An idempotent and a non-idempotent operation, both in flight at the save. */
  function inFlight() {
    const scene = busyScene(START);
    const { api } = scene;
    const inFlightNow = valid(scene).filter((h) => api.state(h) === State.IN_FLIGHT);
    return { scene, image: saved(scene), inFlightNow };
  }

  test("ATTEMPTS_LOST: each fails AMBIGUOUS at the save, as a report of AMBIGUOUS would", () => {
    const { scene, image, inFlightNow } = inFlight();
    expect(inFlightNow.length).toBeGreaterThan(0);
    const api = instantiate();
    expect(restoreImage(api, image, OTHER, 50, RestoreFlag.ATTEMPTS_LOST)).toBe(Result.OK);
    for (const h of inFlightNow) {
      scene.api.report(h, scene.api.attempt(h), Outcome.AMBIGUOUS, 0, scene.now);
    }
    const handles = valid(scene);
    scene.api.nextDue(tickAfter(scene.now, 50));
    expect(drive(api, handles, OTHER)).toEqual(drive(scene.api, handles, tickAfter(scene.now, 50)));
  });

  /** One operation (3 attempts, a 5,000-tick timeout, waits of 100, policy flags `policyFlags`)
   * whose first attempt started at START, saved then and restored at OTHER, `elapsed` later. */
  function restoredAttempt(policyFlags: number, elapsed: number, restoreFlags = 0) {
    const api = create(2n);
    api.setPolicy(0, 3, 5000, 100, 100, 0, 0, policyFlags);
    const h = api.begin(0, START);
    api.poll(START);
    const restored = instantiate();
    const image = saveImage(api, START) as Uint8Array;
    expect(restoreImage(restored, image, OTHER, elapsed, restoreFlags)).toBe(Result.OK);
    return { api, h, restored };
  }

  test("ATTEMPTS_LOST: an idempotent policy retries with the same operation id, another ends AMBIGUOUS", () => {
    for (const idempotent of [true, false]) {
      const { api, h, restored } = restoredAttempt(1 | (idempotent ? 4 : 0), 1000, RestoreFlag.ATTEMPTS_LOST);
      expect(restored.lastOutcome(h)).toBe(Outcome.AMBIGUOUS);
      if (idempotent) {
        expect(restored.poll(OTHER)).toBe(h);
        expect(restored.attempt(h)).toBe(2);
        expect(restored.operationId(h)).toBe(api.operationId(h));
      } else {
        expect([restored.state(h), restored.endReason(h)]).toEqual([State.DONE, EndReason.AMBIGUOUS]);
        expect(restored.ended(OTHER)).toBe(h);
      }
    }
  });

  test("without the flag attempts stay in flight and a later report counts", () => {
    const { h, restored } = restoredAttempt(5, 1000);
    expect(restored.state(h)).toBe(State.IN_FLIGHT);
    expect(restored.attemptDeadline(h)).toBe(tickAfter(OTHER, 4000));
    expect(restored.report(h, 1, Outcome.SUCCESS, 0, OTHER)).toBe(Result.OK);
    expect(restored.endReason(h)).toBe(EndReason.SUCCEEDED);
  });

  test("without the flag an attempt whose deadline passed during the sleep times out at restore", () => {
    const { h, restored } = restoredAttempt(1, 6000);
    expect([restored.lastOutcome(h), restored.endReason(h)]).toEqual([Outcome.TIMEOUT, EndReason.AMBIGUOUS]);
  });
});

/** Restores `bytes` (length `length`) into a copy of the scene and expects `code` and no
 * effect at all, compared with a twin that never saw the call. */
/** What snapshot and drive see of the busy scene after a save: busyScene is deterministic,
 * so one twin serves every refusal below (thousands of them). */
const untouched = (() => {
  const twin = busyScene(START);
  saved(twin);
  return { snapshot: snapshot(twin.api, twin.handles), drive: drive(twin.api, twin.handles, twin.now) };
})();

function expectRefused(bytes: Uint8Array, code: number, args: [number, number, number] = [OTHER, 0, 0]) {
  const scene = busyScene(START);
  saved(scene); // the area holds a valid image before the copy
  expect(restoreImage(scene.api, bytes, ...args)).toBe(code);
  expect(diffSnapshots(snapshot(scene.api, scene.handles), untouched.snapshot)).toEqual([]);
  // expect() only on a difference: its deep equality takes milliseconds on a drive's
  // thousands of numbers, the string comparison a few microseconds.
  const driven = drive(scene.api, scene.handles, scene.now);
  if (driven.join() !== untouched.drive.join()) expect(driven).toEqual(untouched.drive);
}

describe("refused images change nothing", () => {
  const image = saved(busyScene(START));

  test("every single-bit flip", { timeout: 120_000 }, () => {
    for (let bit = 0; bit < image.length * 8; bit++) {
      const flipped = image.slice();
      flipped[bit >> 3] ^= 1 << (bit & 7);
      const byte = bit >> 3;
      const code =
        byte === 0
          ? Err.IMAGE_FORMAT
          : byte === 1
            ? Err.IMAGE_ABI
            : byte < 4
              ? Err.IMAGE_LENGTH
              : Err.IMAGE_CRC;
      expectRefused(flipped, code);
    }
  });

  test("every truncation", () => {
    for (let length = 0; length < image.length; length++) {
      expectRefused(image.slice(0, length), Err.IMAGE_LENGTH);
    }
  });

  test("in a fresh instance too: still not initialised afterwards", () => {
    const api = instantiate();
    expect(restoreImage(api, image.slice(0, 20), 5)).toBe(Err.IMAGE_LENGTH);
    expect(api.poll(5)).toBe(Err.NOT_INITIALIZED);
    expect(api.save(5)).toBe(Err.NOT_INITIALIZED);
  });

  test("arguments first: unknown flags BAD_FIELD, elapsed of 2^31 SPAN_TOO_LARGE", () => {
    expectRefused(image, Err.BAD_FIELD, [OTHER, 0, 2]);
    expectRefused(image, Err.SPAN_TOO_LARGE, [OTHER, 2 ** 31, 1]);
  });

  test("the header: length outside 8 to AREA_BYTES, format, ABI", () => {
    expectRefused(new Uint8Array(Image.AREA_BYTES + 1), Err.IMAGE_LENGTH);
    expectRefused(image.slice(0, 7), Err.IMAGE_LENGTH);
    const other = image.slice();
    other[0] = Image.FORMAT_VERSION + 1;
    expectRefused(withCrc(other), Err.IMAGE_FORMAT);
    other[0] = Image.FORMAT_VERSION;
    other[1] = ABI_VERSION - 1;
    expectRefused(withCrc(other), Err.IMAGE_ABI);
    const padded = new Uint8Array(image.length + 1);
    padded.set(image);
    expectRefused(padded, Err.IMAGE_LENGTH);
  });

  describe("a field out of range, with a correct CRC: IMAGE_FIELD", () => {
    const fields = decodeImage(image).fields;
    const WORDS = 2 + 4 + 9 + Counter.COUNT; // clockAhead, nextOperationId, PRNG, budget, counters
    const POLICY = 18; // isSet, thirteen fields, the breaker's four
    const policy0 = WORDS;
    const policy1 = policy0 + POLICY;
    // Slots of busyScene: 0 WAITING, 1 IN_FLIGHT, 2 DONE handed out, 3 DONE, 4 WAITING DUE.
    const slot = (s: number) => policy1 + 1 + 1 + POLICY + 4 + s * 14;
    const changed = (at: number, value: number) => fields.map((f, i) => (i === at ? value : f));
    const cases: [string, number[]][] = [
      ["clockAhead above BACKSTEP_TOLERANCE", changed(0, 1001)],
      ["nextOperationId above 2^31 - 1", changed(1, 2 ** 31)],
      ["a budget number above MAX_SPAN", changed(6, 2 ** 31)],
      ["budget flags 4", changed(14, 4)],
      ["isSet 2", changed(policy0, 2)],
      ["maxAttempts 256", changed(policy0 + 1, 256)],
      ["policy flags 128 (past SPREAD_DROP, the last flag)", changed(policy0 + 2, 128)],
      ["attemptTimeout 0", changed(policy0 + 3, 0)],
      ["a span above MAX_SPAN", changed(policy0 + 5, 2 ** 31)],
      ["spread above MAX_SPAN", changed(policy0 + 9, 2 ** 31)],
      ["breakAfter 256", changed(policy0 + 10, 256)],
      ["maxRetryAfter above MAX_SPAN", changed(policy0 + 13, 2 ** 31)],
      ["breakerState 4 (between PROBING and ISOLATED)", changed(policy0 + 14, 4)],
      ["breakerState 6", changed(policy0 + 14, 6)],
      ["breakerState 8", changed(policy0 + 14, 8)],
      ["breakerOpens 256", changed(policy0 + 16, 256)],
      ["a PROBING breaker without its probe", changed(policy0 + 14, Breaker.PROBING)],
      ["generation 65536", changed(slot(0), 65536)],
      ["state 5", changed(slot(0) + 1, 5)],
      ["policy 8", changed(slot(0) + 2, 8)],
      ["a policy never set", changed(slot(0) + 2, 1)],
      ["attempt 2^31", changed(slot(1) + 3, 2 ** 31)],
      ["UP without SESSION", changed(slot(1) + 1, State.UP)],
      ["HELD while the breaker is CLOSED", changed(slot(0) + 6, OpFlag.HELD)],
      ["PROBE while the breaker is CLOSED", changed(slot(1) + 6, OpFlag.PROBE)],
      ["DROPPED without SESSION", changed(slot(0) + 6, OpFlag.DROPPED)],
      ["level 256", changed(slot(0) + 13, 256)],
      ["lastOutcome 7", changed(slot(0) + 4, 7)],
      ["endReason 8", changed(slot(3) + 5, 8)],
      ["endReason while live", changed(slot(0) + 5, EndReason.SUCCEEDED)],
      ["no endReason when DONE", changed(slot(3) + 5, EndReason.NONE)],
      ["DUE while IN_FLIGHT", changed(slot(1) + 6, 3)],
      ["HANDED_OUT while WAITING", changed(slot(0) + 6, 6)],
      ["opFlags 128", changed(slot(3) + 6, 128)],
      ["operationId above 2^31 - 1", changed(slot(0) + 7, 2 ** 31)],
      ["previousWait above MAX_SPAN", changed(slot(0) + 11, 2 ** 31)],
      ["lastRetryCost above MAX_SPAN", changed(slot(0) + 12, 2 ** 31)],
      ["a field missing", fields.slice(0, -1)],
      ["a field too many", [...fields, 0]],
    ];
    test.each(cases)("%s", (_, body) => expectRefused(encodeImage(body), Err.IMAGE_FIELD));

    // A timer already reached at the saved clock is no fault: restore's advance applies it.
    const scene = busyScene(START);
    const handleIn = (s: number) => scene.handles.find((h) => scene.api.slot(h) === s)!;
    test.each([
      [
        "a retry timer already reached: DUE at once",
        changed(slot(0) + 8, 0),
        0,
        State.WAITING,
        EndReason.NONE,
      ],
      [
        "an attempt deadline already reached: timed out",
        changed(slot(1) + 9, 0),
        1,
        State.DONE,
        EndReason.AMBIGUOUS,
      ],
      [
        "a deadline already passed: ends DEADLINE",
        changed(slot(0) + 10, 2 ** 32 - 5),
        0,
        State.DONE,
        EndReason.DEADLINE,
      ],
    ])("%s", (_, body, s, state, reason) => {
      const api = instantiate();
      expect(restoreImage(api, encodeImage(body), OTHER)).toBe(Result.OK);
      const h = handleIn(s);
      expect([api.state(h), api.endReason(h)]).toEqual([state, reason]);
      if (state === State.WAITING) expect(api.nextDue(OTHER)).toBe(0);
      expect(saveImage(api, OTHER)).toBeInstanceOf(Uint8Array);
    });

    test("the unchanged fields, re-encoded, are accepted (the cases above change one thing)", () => {
      expect(restoreImage(instantiate(), encodeImage(fields), OTHER)).toBe(Result.OK);
    });

    test("a varint that is not minimal is read as its value; one longer than 32 bits or 5 bytes is refused", () => {
      const body = image.subarray(Image.HEADER_BYTES, image.length - Image.CRC_BYTES);
      const build = (prefix: number[], rest: Uint8Array) => {
        const length = Image.HEADER_BYTES + prefix.length + rest.length + Image.CRC_BYTES;
        const bytes = new Uint8Array(length);
        bytes.set([Image.FORMAT_VERSION, ABI_VERSION, length & 0xff, length >> 8, ...prefix]);
        bytes.set(rest, Image.HEADER_BYTES + prefix.length);
        return withCrc(bytes);
      };
      // clockAhead (0) as 0x80 0x00, or as five bytes, then the rest as saved: accepted,
      // and the next image is the one saved, in minimal form
      for (const prefix of [
        [0x80, 0x00],
        [0x80, 0x80, 0x80, 0x80, 0x00],
      ]) {
        const api = instantiate();
        expect(restoreImage(api, build(prefix, body.subarray(1)), OTHER)).toBe(Result.OK);
        expect(saveImage(api, OTHER)).toEqual(image);
      }
      // clockAhead with a fifth byte above 15, or a sixth byte
      expectRefused(build([0x80, 0x80, 0x80, 0x80, 0x10], body.subarray(1)), Err.IMAGE_FIELD);
      expectRefused(build([0x80, 0x80, 0x80, 0x80, 0x80, 0x00], body.subarray(1)), Err.IMAGE_FIELD);
    });
  });
});

describe("an attempt in flight past its operation's deadline", () => {
  // A forged image no run writes (poll clips attempts to the deadline): restore used to
  // accept it, and the image save wrote a tick later was then refused (IMAGE_FIELD). Its
  // fields as found (under ABI v3), with the two fields format 3 added (the counter
  // RETRY_AFTER_CLAMPED, policy 0's maxRetryAfter) as 0, and this ABI's header and CRC.
  const found = Buffer.from(
    "0203610000000100000000000000000000000000000000000000000000000000000000000000010304e80764e807" +
      "0000000000000000000000000000000000000102000100000205000a0100000000000000000000000000000000" +
      "00002830f349",
    "hex",
  );
  const old = decodeImage(Uint8Array.from(found)).fields;
  const counted = 2 + 4 + 9 + Counter.RETRY_AFTER_CLAMPED; // clockAhead, id, PRNG, budget, counters
  const policyFields = 1 + 12; // isSet, maxAttempts to breakCap
  const forged = encodeImage([
    ...old.slice(0, counted),
    0,
    ...old.slice(counted, counted + policyFields),
    0,
    ...old.slice(counted + policyFields),
  ]);

  test("is refused IMAGE_FIELD, with nothing changed", () => {
    expect(forged.length).toBe(99);
    const api = instantiate();
    expect(restoreImage(api, forged, 1000)).toBe(Err.IMAGE_FIELD);
    expect(api.save(1001)).toBe(Err.NOT_INITIALIZED);
  });

  test("the same image with the attempt deadline at the deadline is accepted, and so is its next image", () => {
    const fields = decodeImage(forged).fields;
    const at = fields.indexOf(10); // the attempt deadline, 10 ticks ahead; the deadline 1
    expect(fields[at + 1]).toBe(1);
    const api = instantiate();
    expect(restoreImage(api, encodeImage(fields.map((f, i) => (i === at ? 1 : f))), 1000)).toBe(Result.OK);
    const next = saveImage(api, 1001) as Uint8Array;
    expect(restoreImage(instantiate(), next, 1001)).toBe(Result.OK);
  });
});

describe("a wait the image holds exactly 2^31 ticks ahead, with ATTEMPTS_LOST", () => {
  // Found by the soak: at the saved clock a deadline 2^31 ahead reads as reached, and after
  // the step to now as far ahead. ATTEMPTS_LOST visits every slot at the saved clock, so it
  // applies there (DEADLINE); without the flag the advance to now sees it ahead.
  const slot0 = [
    1,
    State.WAITING,
    0,
    1,
    Outcome.TRANSIENT,
    0,
    OpFlag.HAS_DEADLINE,
    7,
    100,
    0,
    2 ** 31,
    100,
    0,
    1,
  ];
  const policy0 = [1, 5, 0, 1000, 100, 1000, 100, 5000, ...Array(10).fill(0)];
  const fields = [
    0,
    8,
    1,
    2,
    3,
    4,
    ...Array(9 + Counter.COUNT).fill(0),
    ...policy0,
    ...Array(7).fill(0),
    ...slot0,
    ...Array(15).fill(0),
  ];

  test.each([
    [RestoreFlag.ATTEMPTS_LOST, State.DONE, 1],
    [0, State.WAITING, 0],
  ])("flags %i: the operation is %i, ENDED_DEADLINE %i", (flags, state, ended) => {
    const api = instantiate();
    expect(restoreImage(api, encodeImage(fields), 10_000, 5_000, flags)).toBe(Result.OK);
    expect(api.state(1 << 4)).toBe(state);
    expect(api.counter(Counter.ENDED_DEADLINE)).toBe(ended);
  });
});

describe("no byte string traps", () => {
  const valid = decodeImage(saved(busyScene(START))).fields;
  propTest.prop([fc.nat(valid.length - 1), fc.nat(2 ** 32 - 1)], runs(500))(
    "a valid image with any one field set to any u32: accepted or IMAGE_FIELD, never a trap",
    (at, value) => {
      const api = instantiate();
      const code = restoreImage(api, encodeImage(valid.map((f, i) => (i === at ? value : f))), OTHER);
      expect([Result.OK, Err.IMAGE_FIELD]).toContain(code);
      if (code === Result.OK) drive(api, [], OTHER);
    },
  );

  const codes = new Set<number>([
    Result.OK,
    Err.IMAGE_LENGTH,
    Err.IMAGE_FORMAT,
    Err.IMAGE_ABI,
    Err.IMAGE_CRC,
    Err.IMAGE_FIELD,
  ]);

  propTest.prop([fc.uint8Array({ maxLength: Image.AREA_BYTES + 8 }), fc.nat(2 ** 32 - 1)], runs(300))(
    "random bytes at any length: refused or accepted, never a trap",
    (bytes, now) => {
      const api = instantiate();
      expect(codes.has(restoreImage(api, bytes, now))).toBe(true);
      const memory = new Uint8Array(
        api.memory.buffer,
        api.imageAddress(),
        bytes.length > 1024 ? 0 : bytes.length,
      );
      expect(codes.has(api.restore(memory.length + 3, now, 0, 0))).toBe(true);
    },
  );

  // Mostly small values, so that some images pass the range checks and reach the checks
  // between fields; any u32 now and then, in any field.
  const field = fc.oneof(
    { arbitrary: fc.nat(300), weight: 4 },
    { arbitrary: fc.nat(2 ** 32 - 1), weight: 1 },
  );
  propTest.prop([fc.array(field, { maxLength: 260 }), fc.nat(2 ** 32 - 1)], runs(500))(
    "random fields with a correct header and CRC: IMAGE_FIELD, or a state that keeps working",
    (fields, now) => {
      const api = instantiate();
      const code = restoreImage(api, encodeImage(fields), now);
      expect([Result.OK, Err.IMAGE_FIELD, Err.IMAGE_LENGTH]).toContain(code);
      if (code !== Result.OK) return;
      drive(api, [], now);
      const again = saveImage(api, now) as Uint8Array;
      expect(restoreImage(instantiate(), again, now)).toBe(Result.OK);
    },
  );
});
