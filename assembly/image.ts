// The image: the whole scheduler written out as bytes and read back (docs/ABI.md, Saving
// and restoring). save() walks the state (state.ts) and writes each field. restore() walks
// the image twice: first record by record into a scratch record, checking each, then (only
// when all was good) into the state, so a refused image changes nothing. Ticks are stored
// as spans from `now`, so an image does not depend on where the tick counter stood.
import {
  ABI_VERSION,
  BREAKER_ISOLATED,
  BREAKER_OPEN,
  BREAKER_PROBING,
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
  LIMIT_OPERATIONS,
  LIMIT_POLICIES,
  OP_FLAG_DROPPED,
  OP_FLAG_DUE,
  OP_FLAG_HAS_DEADLINE,
  OP_FLAG_HELD,
  OP_FLAG_PROBE,
  OP_FLAG_SESSION,
  OUTCOME_TIMEOUT,
  RESTORE_FLAG_ATTEMPTS_LOST,
  RESULT_OK,
  STATE_DONE,
  STATE_FREE,
  STATE_IN_FLIGHT,
  STATE_UP,
} from "./generated/constants";
import { touch } from "./changes";
import { crc32 } from "./crc32";
import { flagsAllowed } from "./machine";
import { restoreMachine, spreadDue } from "./operations";
import { policyRecord } from "./policy-table";
import { isInitialized } from "./ready";
import { advance, loseAttempts } from "./scan";
import {
  OPERATIONS_AT,
  Operation,
  POLICIES_AT,
  Policy,
  SCRATCH,
  STATE,
  STATE_BYTES,
  clearWords,
} from "./state";
import { Clock, clock, isSpan, tickAfter, ticksUntil } from "./ticks";
import {
  position,
  put,
  readCleanly,
  refuse,
  seek,
  startReading,
  startWriting,
  take,
  writing,
} from "./varint";

const AREA: usize = memory.data(IMAGE_AREA_BYTES, 4);
const SMALLEST: u32 = IMAGE_HEADER_BYTES + IMAGE_CRC_BYTES;
const ANY: u32 = 0xffffffff;

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
const U8: u8 = 24; // LIMIT_MAX_ATTEMPTS, breakAfter, the breaker's counts, the level
const U7: u8 = 25; // opFlags, policy flags
const U3: u8 = 29; // states, POLICIES - 1, end reasons, outcomes, breaker states (checked below)
const U2: u8 = 30; // the budget's flags
const U1: u8 = 31; // isSet
const PREFIX_WORDS: usize = POLICIES_AT >> 2;
const POLICY_WORDS: usize = offsetof<Policy>() >> 2;
// prettier-ignore
const KINDS = memory.data<u8>([
  // The next operation id, the PRNG, the budget (its flags last) and the counters: one
  // record of PREFIX_WORDS.
  SPAN, U32, U32, U32, U32,
  SPAN, SPAN, SPAN, SPAN, SPAN, SPAN, SPAN, SPAN, U2,
  U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32, U32,
  // A policy: isSet, maxAttempts, flags, attemptTimeout, the nine other spans (breakAfter
  // between them), then its breaker: state, failures, opens, breakEnds.
  U1 | LEAD, U8, U7, SPAN | NONZERO, SPAN, SPAN, SPAN, SPAN, SPAN, SPAN, U8, SPAN, SPAN, SPAN,
  U3, U8, U8, U32 | TICK,
  // A slot: generation, state, policy, attempt, lastOutcome, endReason, opFlags,
  // operationId, nextAttemptAt, attemptDeadline, deadline, previousWait, lastRetryCost, level.
  U16 | LEAD, U3 | LEAD, U3, SPAN, U3, U3, U7,
  SPAN, U32 | TICK, U32 | TICK, U32 | TICK, SPAN, SPAN, U8,
]);
const POLICY_KINDS: usize = KINDS + PREFIX_WORDS;
const SLOT_KINDS: usize = POLICY_KINDS + POLICY_WORDS;

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

// The body in image order (docs/ABI.md, Image format): the clock, then the state record by
// record. `checking`, every record goes to the scratch instead and is checked there.
function walk(checking: bool): void {
  seek(AREA + IMAGE_HEADER_BYTES);
  savedClock = tickAfter(origin, value(<u32>ticksUntil(origin, clock.now), LIMIT_BACKSTEP_TOLERANCE));
  setPolicies = 0;
  holding = 0;
  probing = 0;
  // The prefix is one record; the policies follow it, then the slots.
  let kinds = KINDS;
  let bytes = POLICIES_AT;
  for (let at = STATE; at < STATE + STATE_BYTES; at += bytes) {
    if (at == STATE + POLICIES_AT) {
      kinds = POLICY_KINDS;
      bytes = offsetof<Policy>();
    }
    if (at == STATE + OPERATIONS_AT) {
      kinds = SLOT_KINDS;
      bytes = offsetof<Operation>();
    }
    const to = checking ? SCRATCH : at;
    fields(to, kinds, bytes);
    if (!checking) continue;
    if (kinds == POLICY_KINDS) notePolicy(<u32>((at - STATE - POLICIES_AT) / bytes), changetype<Policy>(to));
    if (kinds == SLOT_KINDS) checkSlot(changetype<Operation>(to));
  }
  if (probing) refuse(); // a PROBING breaker without its probe
}

// One record's fields at `at`.
function fields(at: usize, kinds: usize, bytes: usize): void {
  for (let w: usize = 0; w < bytes; w += 4) {
    const kind = <u32>load<u8>(kinds + (w >> 2));
    const from = kind & TICK ? origin : 0;
    const v = value(load<u32>(at + w) - from, ANY >>> kind);
    store<u32>(at + w, v + from);
    if (v == 0) {
      if (kind & NONZERO) refuse();
      if (kind & LEAD) {
        // Restoring, the words it leaves out are 0.
        if (!writing()) clearWords(at + w, bytes - w);
        break;
      }
    }
  }
}

/** Applies what is due by now, writes the image and returns its length, or NOT_INITIALIZED. */
export function save(now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  advance(now);
  origin = now;
  // Only an OPEN breaker's end is a timer; the others are written as 0 (an image does not
  // depend on where the tick counter stood).
  for (let id: u32 = 0; id < <u32>LIMIT_POLICIES; id++) {
    const p = policyRecord(id);
    if (p.breakerState != BREAKER_OPEN) p.breakEnds = now;
  }
  startWriting();
  walk(false);
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
  if (flags > <u32>RESTORE_FLAG_ATTEMPTS_LOST) return ERROR_BAD_FIELD; // another bit
  if (!isSpan(elapsed)) return ERROR_SPAN_TOO_LARGE;
  if (length - SMALLEST > <u32>IMAGE_AREA_BYTES - SMALLEST) return ERROR_IMAGE_LENGTH; // below wraps
  if (load<u8>(AREA) != IMAGE_FORMAT_VERSION) return ERROR_IMAGE_FORMAT;
  if (load<u8>(AREA + 1) != ABI_VERSION) return ERROR_IMAGE_ABI;
  if (<u32>load<u16>(AREA + 2) != length) return ERROR_IMAGE_LENGTH;
  const body = length - IMAGE_CRC_BYTES;
  if (load<u32>(AREA + body) != crc32(AREA, body)) return ERROR_IMAGE_CRC;
  origin = tickAfter(now, 0 - elapsed); // elapsed ticks before now
  startReading(AREA + body);
  walk(true);
  if (!readCleanly()) return ERROR_IMAGE_FIELD;
  walk(false);
  Clock.restore(savedClock);
  restoreMachine();
  if (flags) loseAttempts();
  advance(now);
  if (flags) spreadDue();
  touch();
  return RESULT_OK;
}

// What the check pass learned of the policies before the slots: which are set, which
// breakers hold their operations (OPEN, PROBING), which probe and have not yet met their
// probe in flight. One bit per policy.
let savedClock: u32 = 0;
let setPolicies: u32 = 0;
let holding: u32 = 0;
let probing: u32 = 0;

function notePolicy(id: u32, p: Policy): void {
  if (!p.isSet) return;
  const bit: u32 = 1 << id;
  setPolicies |= bit;
  const state = p.breakerState;
  if ((state > <u32>BREAKER_PROBING) & (state != BREAKER_ISOLATED)) refuse();
  if (state & 1) holding |= bit; // OPEN or PROBING (breaker.ts, letsStart)
  if (state == BREAKER_PROBING) probing |= bit;
}

// The checks between fields of one slot (docs/ABI.md, restore, item 8). A timer already
// reached at the saved clock needs none: restore's advance applies it, as any call's would.
function checkSlot(op: Operation): void {
  const state = op.state;
  if (state == STATE_FREE) return;
  const bit: u32 = 1 << op.policy; // out of range: refused by the walk (wasm shifts mod 32)
  const flags = op.flags;
  const session = flags & OP_FLAG_SESSION;
  if (flags & OP_FLAG_PROBE) {
    // Only a PROBING breaker has a probe, and only one.
    if (!(probing & bit)) refuse();
    probing &= ~bit;
  }
  // The flags the state does not allow, and those the operation's kind (a session has no
  // deadline, a request never drops) and its breaker rule out: a holding breaker's
  // operations are not DUE, another's not HELD.
  const barred =
    ~flagsAllowed(state) |
    (session ? OP_FLAG_HAS_DEADLINE : OP_FLAG_DROPPED) |
    (holding & bit ? OP_FLAG_DUE : OP_FLAG_HELD);
  // The checks ORed as bools, one branch for all (as setPolicy does).
  if (
    // Only a session may be UP, the last state.
    (state > <u32>(session ? STATE_UP : STATE_DONE)) |
    !(setPolicies & bit) |
    ((op.endReason == END_REASON_NONE) != (state != STATE_DONE)) |
    (op.lastOutcome > <u32>OUTCOME_TIMEOUT) | // three bits allow 7
    ((flags & barred) != 0) |
    // poll clips every attempt to the deadline: it times out by then.
    ((state == STATE_IN_FLIGHT) &
      ((flags & OP_FLAG_HAS_DEADLINE) != 0) &
      (ticksUntil(savedClock, op.attemptDeadline) > ticksUntil(savedClock, op.deadline)))
  )
    refuse();
}
