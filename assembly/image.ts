// The image: the whole scheduler written out as bytes and read back (docs/ABI.md, Saving
// and restoring). save() walks the state (state.ts) and writes each field; restore()
// walks the same way reading each field into the shadow, checks the shadow, and only
// then copies it over the live state, so a refused image changes nothing. Ticks are
// stored as spans from `now`, so an image does not depend on where the tick counter stood.
import {
  ABI_VERSION,
  END_REASON_NONE,
  ERROR_BAD_FIELD,
  ERROR_IMAGE_ABI,
  ERROR_IMAGE_CRC,
  ERROR_IMAGE_FIELD,
  ERROR_IMAGE_FORMAT,
  ERROR_IMAGE_LENGTH,
  ERROR_NOT_INITIALIZED,
  ERROR_SPAN_TOO_LARGE,
  IMAGE_AREA_BYTES,
  IMAGE_CRC_BYTES,
  IMAGE_FORMAT_VERSION,
  IMAGE_HEADER_BYTES,
  LIMIT_BACKSTEP_TOLERANCE,
  LIMIT_MAX_ATTEMPTS,
  LIMIT_MAX_SPAN,
  LIMIT_OPERATIONS,
  LIMIT_POLICIES,
  OP_FLAG_DUE,
  OP_FLAG_HANDED_OUT,
  OP_FLAG_HAS_DEADLINE,
  OUTCOME_TIMEOUT,
  RESTORE_FLAG_ATTEMPTS_LOST,
  RESULT_OK,
  STATE_DONE,
  STATE_FREE,
  STATE_IN_FLIGHT,
  STATE_WAITING,
} from "./generated/constants";
import { touch } from "./changes";
import { crc32 } from "./crc32";
import * as machine from "./machine";
import {
  OPERATIONS_AT,
  Operation,
  POLICIES_AT,
  Policy,
  SHADOW,
  STATE,
  STATE_BYTES,
  copyWords,
} from "./state";
import { Clock, clock, isSpan, tickAfter, tickReached, ticksUntil } from "./ticks";
import { position, put, readCleanly, refuse, startReading, startWriting, take, writing } from "./varint";

const AREA: usize = memory.data(IMAGE_AREA_BYTES, 4);
const SMALLEST: u32 = IMAGE_HEADER_BYTES + IMAGE_CRC_BYTES;
const ANY: u32 = 0xffffffff;
// The opFlags each state allows, four bits per state.
const FLAGS_ALLOWED: u32 =
  ((OP_FLAG_DUE | OP_FLAG_HAS_DEADLINE) << (STATE_WAITING * 4)) |
  (OP_FLAG_HAS_DEADLINE << (STATE_IN_FLIGHT * 4)) |
  ((OP_FLAG_HAS_DEADLINE | OP_FLAG_HANDED_OUT) << (STATE_DONE * 4));

// The walk's field kinds, one byte per word of a record (docs/ABI.md, restore, item 8):
// the low five bits are 32 less the field's width in bits (its largest value is
// ANY >>> kind: wasm takes a shift count modulo 32, so the other bits drop out); TICK
// marks a tick (stored relative to the origin), LEAD a word whose 0 leaves out the rest
// of the record, NONZERO a word that may not be 0. (The table starts and ends with a
// non-zero byte; the zero bytes of U32 words inside it are zero-initialised memory.)
const TICK: u8 = 0x20;
const LEAD: u8 = 0x40;
const NONZERO: u8 = 0x80;
const U32: u8 = 0; // any u32
const SPAN: u8 = 1; // MAX_SPAN
const U16: u8 = 16; // generations
const U8: u8 = 24; // LIMIT_MAX_ATTEMPTS
const U3: u8 = 29; // policy flags, opFlags, POLICIES - 1, end reasons, outcomes (below)
const U2: u8 = 30; // states
const U1: u8 = 31; // isSet, the budget's flags
const PREFIX_WORDS: usize = POLICIES_AT >> 2;
const POLICY_WORDS: usize = offsetof<Policy>() >> 2;
// prettier-ignore
const KINDS = memory.data<u8>([
  // The next operation id, the PRNG, the budget (its flags last) and the counters: one
  // record of PREFIX_WORDS.
  SPAN, U32, U32, U32, U32,
  SPAN, SPAN, SPAN, SPAN, SPAN, SPAN, SPAN, SPAN, U1,
  U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32,
  // A policy: isSet, maxAttempts, flags, attemptTimeout, the four other spans.
  U1 | LEAD, U8 | NONZERO, U3, SPAN | NONZERO, SPAN, SPAN, SPAN, SPAN,
  // A slot: generation, state, policy, attempt, lastOutcome, endReason, opFlags,
  // operationId, nextAttemptAt, attemptDeadline, deadline, previousWait, lastRetryCost.
  U16 | LEAD, U2 | LEAD, U3, U8, U3, U3, U3,
  SPAN, U32 | TICK, U32 | TICK, U32 | TICK, SPAN, SPAN,
]);

/** Byte offset of the image area in linear memory. */
export function imageAddress(): u32 {
  return <u32>AREA;
}

// Ticks are stored relative to this: save's now, or restore's now - elapsed.
let origin: u32 = 0;

// One field: saving, v is written; restoring, one is read (refused above max).
function value(v: u32, max: u32): u32 {
  if (writing()) {
    put(v);
    return v;
  }
  v = take();
  if (v > max) refuse();
  return v;
}

// The state at `base` in image order, from the next operation id on (docs/ABI.md, Image format).
function walk(base: usize): void {
  records(
    records(records(base, 1, KINDS, POLICIES_AT), LIMIT_POLICIES, KINDS + PREFIX_WORDS, offsetof<Policy>()),
    LIMIT_OPERATIONS,
    KINDS + PREFIX_WORDS + POLICY_WORDS,
    offsetof<Operation>(),
  );
}

// `count` records of `bytes` each at `at`, word by word as `kinds` says; returns the end.
function records(at: usize, count: i32, kinds: usize, bytes: usize): usize {
  for (let end = at + <usize>count * bytes; at < end; at += bytes) {
    for (let w: usize = 0; w < bytes; w += 4) {
      const kind = <u32>load<u8>(kinds + (w >> 2));
      const from = kind & TICK ? origin : 0;
      const v = value(load<u32>(at + w) - from, ANY >>> kind);
      store<u32>(at + w, v + from);
      if (v == 0) {
        if (kind & NONZERO) refuse();
        if (kind & LEAD) break;
      }
    }
  }
  return at;
}

/** Applies what is due by now, writes the image and returns its length, or NOT_INITIALIZED. */
export function save(now: u32): i32 {
  if (!machine.isInitialized()) return ERROR_NOT_INITIALIZED;
  machine.advance(now);
  origin = now;
  startWriting(AREA + IMAGE_HEADER_BYTES);
  put(<u32>ticksUntil(now, clock.now));
  walk(STATE);
  const body = <u32>(position() - AREA);
  // The header: format version, ABI version, u16 length, little-endian in one word.
  store<u32>(AREA, IMAGE_FORMAT_VERSION | (ABI_VERSION << 8) | ((body + IMAGE_CRC_BYTES) << 16));
  store<u32>(AREA + body, crc32(AREA, body));
  return <i32>(body + IMAGE_CRC_BYTES);
}

/**
 * Checks the image of `length` bytes in the image area and replaces the whole state with
 * it, rebased to a tick counter that read now - elapsed at the save; OK or why not.
 */
export function restore(length: u32, now: u32, elapsed: u32, flags: u32): i32 {
  if (flags & ~RESTORE_FLAG_ATTEMPTS_LOST) return ERROR_BAD_FIELD;
  if (!isSpan(elapsed)) return ERROR_SPAN_TOO_LARGE;
  if (length - SMALLEST > <u32>IMAGE_AREA_BYTES - SMALLEST) return ERROR_IMAGE_LENGTH; // below wraps
  if (load<u8>(AREA) != IMAGE_FORMAT_VERSION) return ERROR_IMAGE_FORMAT;
  if (load<u8>(AREA + 1) != ABI_VERSION) return ERROR_IMAGE_ABI;
  if (<u32>load<u16>(AREA + 2) != length) return ERROR_IMAGE_LENGTH;
  const body = length - IMAGE_CRC_BYTES;
  if (load<u32>(AREA + body) != crc32(AREA, body)) return ERROR_IMAGE_CRC;
  copyWords(SHADOW, SHADOW, 0, STATE_BYTES);
  origin = tickAfter(now, 0 - elapsed); // elapsed ticks before now
  startReading(AREA + IMAGE_HEADER_BYTES, AREA + body);
  const savedClock = tickAfter(origin, value(0, LIMIT_BACKSTEP_TOLERANCE));
  walk(SHADOW);
  checkShadow(savedClock);
  if (!readCleanly()) return ERROR_IMAGE_FIELD;
  copyWords(STATE, SHADOW, ANY, STATE_BYTES);
  Clock.restore(savedClock);
  machine.restoreMachine();
  if (flags) machine.loseAttempts();
  machine.advance(now);
  touch();
  return RESULT_OK;
}

// The checks between fields (docs/ABI.md, restore, item 8), on the shadow. A timer already
// reached at the saved clock needs none: restore's advance applies it, as any call's would.
function checkShadow(clock: u32): void {
  for (let slot = 0; slot < LIMIT_OPERATIONS; slot++) {
    const op = changetype<Operation>(SHADOW + OPERATIONS_AT + <usize>slot * offsetof<Operation>());
    const state = op.state;
    if (state == STATE_FREE) continue;
    // A policy id out of range was refused by the walk; masked, it still reads the shadow.
    const id = <usize>(op.policy & (LIMIT_POLICIES - 1));
    const policy = changetype<Policy>(SHADOW + POLICIES_AT + id * offsetof<Policy>());
    const flags = op.flags;
    if (
      !policy.isSet ||
      (op.endReason == END_REASON_NONE) != (state != STATE_DONE) ||
      op.lastOutcome > <u32>OUTCOME_TIMEOUT || // three bits allow 7
      flags & ~(FLAGS_ALLOWED >> (state << 2)) ||
      (state == STATE_WAITING && op.attempt == LIMIT_MAX_ATTEMPTS) ||
      // poll clips every attempt to the deadline: it times out by then.
      (state == STATE_IN_FLIGHT &&
        flags & OP_FLAG_HAS_DEADLINE &&
        ticksUntil(clock, op.attemptDeadline) > ticksUntil(clock, op.deadline))
    )
      refuse();
  }
}
