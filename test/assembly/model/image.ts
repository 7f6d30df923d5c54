// The saved image as docs/ABI.md ("Image format", "restore") defines it: a header, a body of
// ULEB128 fields, a CRC-32. encodeImage writes any field values it is given (tests forge
// images with it); decodeImage applies every check restore makes, in the documented order.
import {
  ABI_VERSION,
  Breaker,
  BudgetFlag,
  Counter,
  EndReason,
  Error as Err,
  Image,
  Limit,
  OpFlag,
  Outcome,
  State,
} from "../../../host/library/src/generated/abi.js";
import { ALL_POLICY_FLAGS } from "./backoff.js";
import { crc32 } from "./crc32.js";

/** One slot as the image holds it; ticks are relative to save's now. */
export interface SavedSlot {
  generation: number;
  state: number;
  policy: number;
  attempt: number;
  lastOutcome: number;
  endReason: number;
  opFlags: number;
  operationId: number;
  nextAttemptAt: number;
  attemptDeadline: number;
  deadline: number;
  previousWait: number;
  lastRetryCost: number;
  level: number;
}

/** The whole body, field by field. */
export interface Saved {
  clockAhead: number;
  nextOperationId: number;
  /** s0 to s3. */
  prng: number[];
  /** capacity, tokens, retryCost, timeoutRetryCost, threshold, failureCost, firstAttemptDeposit, successDeposit, flags. */
  budget: number[];
  counters: number[];
  /**
   * Per policy id: maxAttempts, flags, attemptTimeout, baseDelay, maxDelay, throttleBaseDelay,
   * deadline, stableAfter, spread, breakAfter, breakBase, breakCap, maxRetryAfter, then the breaker:
   * breakerState, breakerFailures, breakerOpens, breakEnds (relative); undefined when never set.
   */
  policies: (number[] | undefined)[];
  /** Per slot; undefined for a slot never begun (generation 0). */
  slots: (SavedSlot | undefined)[];
}

const TIMER_AND_AFTER = [
  "policy",
  "attempt",
  "lastOutcome",
  "endReason",
  "opFlags",
  "operationId",
  "nextAttemptAt",
  "attemptDeadline",
  "deadline",
  "previousWait",
  "lastRetryCost",
  "level",
] as const;

function uleb(out: number[], value: number): void {
  let v = value >>> 0;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
}

/** The body's fields of `s`, in image order. */
export function bodyFields(s: Saved): number[] {
  const fields = [s.clockAhead, s.nextOperationId, ...s.prng, ...s.budget, ...s.counters];
  for (const p of s.policies) fields.push(...(p === undefined ? [0] : [1, ...p]));
  for (const slot of s.slots) {
    if (slot === undefined) fields.push(0);
    else if (slot.state === State.FREE) fields.push(slot.generation, slot.state);
    else fields.push(slot.generation, slot.state, ...TIMER_AND_AFTER.map((k) => slot[k]));
  }
  return fields;
}

/** The image bytes of `s` (fields written as given, in range or not), header and CRC included. */
export function encodeImage(s: Saved): Uint8Array {
  return encodeFields(bodyFields(s));
}

/** An image of these body fields (any u32 values), with a header and CRC that fit it. */
export function encodeFields(fields: readonly number[]): Uint8Array {
  const body: number[] = [];
  for (const v of fields) uleb(body, v);
  return sealImage(body);
}

/** Header, `body` and a CRC over both: an image whose only possible faults are in the body. */
export function sealImage(body: ArrayLike<number>): Uint8Array {
  const length = Image.HEADER_BYTES + body.length + Image.CRC_BYTES;
  const bytes = new Uint8Array(length);
  bytes.set([Image.FORMAT_VERSION, ABI_VERSION, length & 0xff, (length >>> 8) & 0xff]);
  bytes.set(body, Image.HEADER_BYTES);
  new DataView(bytes.buffer).setUint32(
    length - Image.CRC_BYTES,
    crc32(bytes.subarray(0, length - Image.CRC_BYTES)),
    true,
  );
  return bytes;
}

/** Thrown by the body reader: restore answers IMAGE_FIELD. */
class FieldOutOfRange extends globalThis.Error {}

function check(ok: boolean): void {
  if (!ok) throw new FieldOutOfRange();
}

/** Reads ULEB128 u32 fields up to the CRC, minimal or not (docs/ABI.md, Image format). */
class BodyReader {
  private at: number = Image.HEADER_BYTES;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly end: number,
  ) {}

  next(): number {
    let value = 0;
    for (let i = 0; ; i++) {
      check(this.at < this.end && i < 5);
      const byte = this.bytes[this.at++];
      // A fifth byte carries bits 28 to 31 only: more is over 32 bits or a sixth byte.
      check(i < 4 || byte <= 0x0f);
      value += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) return value;
    }
  }

  fields(n: number): number[] {
    return Array.from({ length: n }, () => this.next());
  }

  atEnd(): boolean {
    return this.at === this.end;
  }
}

const ahead = (x: number, clockAhead: number) => (x - clockAhead) | 0;
/** Reads a field and refuses it above `max`. */
const upTo = (r: BodyReader, max: number) => {
  const v = r.next();
  check(v <= max);
  return v;
};

function readPolicy(r: BodyReader): number[] | undefined {
  if (upTo(r, 1) === 0) return undefined;
  const maxAttempts = upTo(r, Limit.MAX_ATTEMPTS);
  const flags = upTo(r, ALL_POLICY_FLAGS);
  const spans = Array.from({ length: 7 }, () => upTo(r, Limit.MAX_SPAN));
  const breakAfter = upTo(r, 255);
  const breakSpans = [upTo(r, Limit.MAX_SPAN), upTo(r, Limit.MAX_SPAN), upTo(r, Limit.MAX_SPAN)];
  const breaker = [r.next(), upTo(r, 255), upTo(r, 255), r.next()];
  check(spans[0] !== 0);
  check(breaker[0] <= Breaker.PROBING || breaker[0] === Breaker.ISOLATED);
  return [maxAttempts, flags, ...spans, breakAfter, ...breakSpans, ...breaker];
}

/** Index of breakerState in a saved policy's fields. */
export const BREAKER_STATE_FIELD = 13;

/** The opFlags bits each state allows. */
const ALLOWED_FLAGS: Record<number, number> = {
  [State.WAITING]: OpFlag.DUE | OpFlag.HAS_DEADLINE | OpFlag.SESSION | OpFlag.DROPPED | OpFlag.HELD,
  [State.IN_FLIGHT]: OpFlag.HAS_DEADLINE | OpFlag.SESSION | OpFlag.PROBE | OpFlag.DROPPED,
  [State.DONE]: OpFlag.HAS_DEADLINE | OpFlag.HANDED_OUT | OpFlag.SESSION | OpFlag.DROPPED,
  [State.UP]: OpFlag.SESSION | OpFlag.DROPPED,
};

function readSlot(r: BodyReader, policies: Saved["policies"], clockAhead: number): SavedSlot | undefined {
  const generation = upTo(r, 0xffff);
  if (generation === 0) return undefined;
  const state = upTo(r, State.UP);
  const slot = { generation, state } as SavedSlot;
  if (state === State.FREE) {
    for (const k of TIMER_AND_AFTER) slot[k] = 0;
    return slot;
  }
  const largest: Record<(typeof TIMER_AND_AFTER)[number], number> = {
    policy: Limit.POLICIES - 1,
    attempt: Limit.MAX_SPAN,
    lastOutcome: Outcome.TIMEOUT,
    endReason: EndReason.CANCELLED,
    opFlags: 127,
    operationId: Limit.MAX_SPAN,
    nextAttemptAt: 0xffffffff,
    attemptDeadline: 0xffffffff,
    deadline: 0xffffffff,
    previousWait: Limit.MAX_SPAN,
    lastRetryCost: Limit.MAX_SPAN,
    level: 255,
  };
  for (const k of TIMER_AND_AFTER) slot[k] = upTo(r, largest[k]);
  const inFlight = state === State.IN_FLIGHT;
  const policy = policies[slot.policy];
  check(policy !== undefined);
  check((slot.endReason === EndReason.NONE) === (state !== State.DONE));
  checkSlotFlags(slot, policy![BREAKER_STATE_FIELD]);
  // An attempt never runs past its operation's deadline. (A timer already reached is fine:
  // restore's advance applies it.)
  if (inFlight && (slot.opFlags & OpFlag.HAS_DEADLINE) !== 0) {
    check(ahead(slot.attemptDeadline, clockAhead) <= ahead(slot.deadline, clockAhead));
  }
  return slot;
}

/** The flags rules of restore, item 8: by state, by being a session, by the breaker. */
function checkSlotFlags(slot: SavedSlot, breaker: number): void {
  const f = slot.opFlags;
  const has = (flag: number) => (f & flag) !== 0;
  const holding = breaker === Breaker.OPEN || breaker === Breaker.PROBING || breaker === Breaker.ISOLATED;
  check((f & ~ALLOWED_FLAGS[slot.state]) === 0);
  check(slot.state !== State.UP || has(OpFlag.SESSION));
  check(!(has(OpFlag.SESSION) && has(OpFlag.HAS_DEADLINE)));
  check(!has(OpFlag.DROPPED) || has(OpFlag.SESSION));
  check(!has(OpFlag.DUE) || (!holding && !has(OpFlag.HELD)));
  check(!has(OpFlag.HELD) || holding);
  check(!has(OpFlag.PROBE) || breaker === Breaker.PROBING);
}

/** A PROBING breaker has exactly one probe in flight; no other breaker has one. */
function checkProbes(s: Pick<Saved, "policies" | "slots">): void {
  s.policies.forEach((p, id) => {
    const probes = s.slots.filter(
      (slot) =>
        slot !== undefined &&
        slot.state !== State.FREE &&
        slot.policy === id &&
        (slot.opFlags & OpFlag.PROBE) !== 0,
    ).length;
    check(probes === (p !== undefined && p[BREAKER_STATE_FIELD] === Breaker.PROBING ? 1 : 0));
  });
}

function readBody(r: BodyReader): Saved {
  const clockAhead = upTo(r, Limit.BACKSTEP_TOLERANCE);
  const nextOperationId = upTo(r, 0x7fffffff);
  const prng = r.fields(4);
  const budget = [
    ...Array.from({ length: 8 }, () => upTo(r, Limit.MAX_SPAN)),
    upTo(r, BudgetFlag.REFUND_ON_SUCCESS | BudgetFlag.OFF),
  ];
  const counters = r.fields(Counter.COUNT);
  const policies = Array.from({ length: Limit.POLICIES }, () => readPolicy(r));
  const slots = Array.from({ length: Limit.OPERATIONS }, () => readSlot(r, policies, clockAhead));
  checkProbes({ policies, slots });
  check(r.atEnd());
  return { clockAhead, nextOperationId, prng, budget, counters, policies, slots };
}

/**
 * The image of `length` bytes at the start of `area`, checked as restore checks it from
 * its fourth check on (length, format, ABI, length again, CRC, fields): the body, or the error.
 */
export function decodeImage(area: Uint8Array, length: number): Saved | number {
  const minimum = Image.HEADER_BYTES + Image.CRC_BYTES;
  if (length < minimum || length > Image.AREA_BYTES) return Err.IMAGE_LENGTH;
  if (area[0] !== Image.FORMAT_VERSION) return Err.IMAGE_FORMAT;
  if (area[1] !== ABI_VERSION) return Err.IMAGE_ABI;
  if (area[2] + area[3] * 256 !== length) return Err.IMAGE_LENGTH;
  const view = new DataView(area.buffer, area.byteOffset, length);
  if (view.getUint32(length - Image.CRC_BYTES, true) !== crc32(area.subarray(0, length - Image.CRC_BYTES))) {
    return Err.IMAGE_CRC;
  }
  try {
    return readBody(new BodyReader(area, length - Image.CRC_BYTES));
  } catch (e) {
    if (e instanceof FieldOutOfRange) return Err.IMAGE_FIELD;
    throw e;
  }
}
