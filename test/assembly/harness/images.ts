// Images on the host side: what a host copies out of the image area after save and into it
// before restore, and the damaged and forged images random restores copy in instead (a
// flipped bit, a truncated copy, an edited body with its CRC made to fit, random bytes, or
// an image written field by field, in range or just out of it).
import fc from "fast-check";
import {
  Breaker,
  Counter,
  EndReason,
  Image,
  Limit,
  OpFlag,
  Outcome,
  PolicyFlag,
  State,
} from "../../../host/library/src/generated/abi.js";
import {
  BREAKER_STATE_FIELD,
  bodyFields,
  encodeFields,
  sealImage,
  type Saved,
  type SavedSlot,
} from "../model/image.js";

/** What a target has: a memory and the image area's address in it. */
interface Imaging {
  readonly memory: { readonly buffer: ArrayBuffer };
  imageAddress(): number;
}

/** A copy of the `length` bytes save wrote. */
export function readImage(t: Imaging, length: number): Uint8Array {
  return new Uint8Array(t.memory.buffer, t.imageAddress(), length).slice();
}

/** Copies `bytes` (at most the area's size) into the image area. */
export function writeImage(t: Imaging, bytes: Uint8Array): void {
  new Uint8Array(t.memory.buffer, t.imageAddress(), Image.AREA_BYTES).set(
    bytes.subarray(0, Image.AREA_BYTES),
  );
}

export type Damage =
  | { flip: number } // one bit flipped (bit index mod the image's bits)
  | { cut: number } // only the first (cut mod length) bytes copied and passed as the length
  | { edit: number; byte: number } // one body byte set, the CRC made to fit
  | { bytes: number[]; length: number } // random bytes, any length argument
  | { fields: number[] }; // an image written from these body fields

/** The bytes a restore copies in and the length it passes, from a stored image and a damage. */
export function damaged(image: Uint8Array, d: Damage | undefined): { bytes: Uint8Array; length: number } {
  if (d === undefined) return { bytes: image, length: image.length };
  if ("bytes" in d) return { bytes: Uint8Array.from(d.bytes), length: d.length };
  if ("fields" in d) {
    const bytes = encodeFields(d.fields);
    return { bytes, length: bytes.length };
  }
  if (image.length === 0) return { bytes: image, length: 0 };
  if ("cut" in d) {
    const length = d.cut % image.length;
    return { bytes: image.subarray(0, length), length };
  }
  const bytes = image.slice();
  if ("flip" in d) {
    const bit = d.flip % (bytes.length * 8);
    bytes[bit >> 3] ^= 1 << (bit & 7);
    return { bytes, length: bytes.length };
  }
  const body = bytes.subarray(Image.HEADER_BYTES, bytes.length - Image.CRC_BYTES);
  if (body.length === 0) return { bytes, length: bytes.length };
  body[d.edit % body.length] = d.byte;
  const sealed = sealImage(body);
  return { bytes: sealed, length: sealed.length };
}

export function formatDamage(d: Damage): string {
  if ("flip" in d) return `bit ${d.flip} flipped`;
  if ("cut" in d) return `cut to ${d.cut} bytes (mod length)`;
  if ("edit" in d) return `body byte ${d.edit} set to ${d.byte}, CRC fixed`;
  if ("bytes" in d) return `random bytes [${d.bytes.join(", ")}], length ${d.length}`;
  return `forged from fields [${d.fields.join(", ")}]`;
}

const MAX_SPAN = Limit.MAX_SPAN;
const span = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 5000 }), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: MAX_SPAN }), weight: 1 },
);
const u32 = fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }));

/** A policy's image fields, in range (its breaker CLOSED, OPEN, HALF_OPEN or ISOLATED: a PROBING one needs its probe). */
const policyArb = fc
  .record({
    maxAttempts: fc.nat(255),
    flags: fc.nat(63),
    timeout: fc.integer({ min: 1, max: 5000 }),
    delays: fc.tuple(span, span),
    throttle: span,
    deadline: span,
    session: fc.tuple(span, span, fc.nat(255)),
    breaks: fc.tuple(span, span),
    maxRetryAfter: span,
    breaker: fc.tuple(
      fc.constantFrom(Breaker.CLOSED, Breaker.OPEN, Breaker.HALF_OPEN, Breaker.ISOLATED),
      fc.nat(255),
      fc.nat(255),
      u32,
    ),
  })
  .map((p) => [
    p.maxAttempts,
    p.flags,
    p.timeout,
    Math.min(...p.delays),
    Math.max(...p.delays),
    p.throttle,
    p.flags & PolicyFlag.SESSION ? 0 : p.deadline,
    ...p.session,
    Math.min(...p.breaks),
    Math.max(...p.breaks),
    p.maxRetryAfter,
    ...p.breaker,
  ]);

/** A slot's image record, in range, its timers ahead of clockAhead (an attempt's not past the deadline). */
const slotArb = (policies: (number[] | undefined)[], clockAhead: number) =>
  fc
    .record({
      generation: fc.integer({ min: 1, max: 0xffff }),
      state: fc.nat(State.UP),
      policy: fc.constantFrom(...policies.flatMap((p, id) => (p === undefined ? [] : [id]))),
      attempt: fc.nat(300),
      lastOutcome: fc.nat(Outcome.TIMEOUT),
      endReason: fc.nat(EndReason.CANCELLED - EndReason.SUCCEEDED),
      opFlags: fc.nat(127),
      operationId: fc.nat(MAX_SPAN),
      ahead: fc.tuple(span, span, span),
      previousWait: span,
      lastRetryCost: span,
      level: fc.nat(255),
    })
    .map(({ ahead, ...s }): SavedSlot => {
      const [next, attemptSpan, deadline] = ahead.map((x) => (clockAhead + 1 + x) >>> 0);
      const breaker = policies[s.policy]![BREAKER_STATE_FIELD];
      const session = s.state === State.UP || (s.opFlags & OpFlag.SESSION) !== 0;
      const holding = breaker === Breaker.OPEN || breaker === Breaker.ISOLATED;
      const opFlags = slotFlags(s.state, s.opFlags, session, holding);
      // An attempt in flight ends by its operation's deadline, if it has one (poll clips it).
      const clipped = s.state === State.IN_FLIGHT && (opFlags & OpFlag.HAS_DEADLINE) !== 0;
      return {
        ...s,
        attempt: s.state === State.IN_FLIGHT ? Math.max(1, s.attempt) : s.attempt,
        endReason: s.state === State.DONE ? EndReason.SUCCEEDED + s.endReason : EndReason.NONE,
        opFlags,
        nextAttemptAt: next,
        attemptDeadline: clipped ? Math.min(attemptSpan, deadline) : attemptSpan,
        deadline,
      };
    });

/** The opFlags of `bits` a slot in `state` may have (restore, item 8). */
function slotFlags(state: number, bits: number, session: boolean, holding: boolean): number {
  const kept = {
    [State.FREE]: 0,
    [State.WAITING]: holding ? OpFlag.HELD : OpFlag.DUE,
    [State.IN_FLIGHT]: 0,
    [State.DONE]: OpFlag.HANDED_OUT,
    [State.UP]: 0,
  }[state]!;
  const own = session ? OpFlag.SESSION | (bits & OpFlag.DROPPED) : bits & OpFlag.HAS_DEADLINE;
  return (bits & kept) | (state === State.FREE ? 0 : own);
}

/** A whole image body in range: restore accepts it. */
export const savedArb: fc.Arbitrary<Saved> = fc
  .record({
    clockAhead: fc.oneof(fc.constant(0), fc.nat(Limit.BACKSTEP_TOLERANCE)),
    nextOperationId: fc.nat(MAX_SPAN),
    prng: fc.array(u32, { minLength: 4, maxLength: 4 }),
    capacity: span,
    fractions: fc.tuple(fc.nat(100), fc.nat(100)),
    costs: fc.array(span, { minLength: 5, maxLength: 5 }),
    budgetFlags: fc.nat(1),
    counters: fc.array(u32, { minLength: Counter.COUNT, maxLength: Counter.COUNT }),
    policies: fc.array(fc.option(policyArb, { freq: 2 }), {
      minLength: Limit.POLICIES,
      maxLength: Limit.POLICIES,
    }),
  })
  .chain((s) => {
    const policies = s.policies.map((p) => p ?? undefined);
    const slot = policies.every((p) => p === undefined)
      ? fc.constant(undefined)
      : fc.option(slotArb(policies, s.clockAhead), { freq: 2, nil: undefined });
    return fc
      .array(slot, { minLength: Limit.OPERATIONS, maxLength: Limit.OPERATIONS })
      .map((slots): Saved => {
        const [tokens, threshold] = s.fractions.map((f) => Math.floor((s.capacity * f) / 100));
        const [retry, timeoutRetry, failure, first, success] = s.costs;
        return {
          clockAhead: s.clockAhead,
          nextOperationId: s.nextOperationId,
          prng: s.prng.every((x) => x === 0) ? [1, 0, 0, 0] : s.prng,
          budget: [
            s.capacity,
            tokens,
            retry,
            timeoutRetry,
            threshold,
            failure,
            first,
            success,
            s.budgetFlags,
          ],
          counters: s.counters,
          policies,
          slots,
        };
      });
  });

/** Body fields of an image in range, half the time with one field set to any value. */
const forgedArb = fc.tuple(savedArb, fc.option(fc.tuple(fc.nat(), u32))).map(([saved, spoil]) => {
  const fields = bodyFields(saved);
  if (spoil !== null) fields[spoil[0] % fields.length] = spoil[1];
  return { fields };
});

export const damageArb: fc.Arbitrary<Damage> = fc.oneof(
  fc.nat().map((flip) => ({ flip })),
  fc.nat().map((cut) => ({ cut })),
  fc.tuple(fc.nat(), fc.nat(255)).map(([edit, byte]) => ({ edit, byte })),
  fc
    .tuple(
      fc.array(fc.nat(255), { maxLength: 64 }),
      fc.oneof(fc.nat(Image.AREA_BYTES + 8), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
    )
    .map(([bytes, length]) => ({ bytes, length })),
  forgedArb,
);
