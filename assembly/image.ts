// The image: the whole scheduler written out as bytes and read back (docs/ABI.md, Saving
// and restoring). save() walks the state (state.ts) and writes each field; restore()
// walks the same way reading each field into the shadow, checks the shadow, and only
// then copies it over the live state, so a refused image changes nothing. Ticks are
// stored as spans from `now`, so an image does not depend on where the tick counter stood.
import {
  ABI_VERSION,
  END_REASON_CANCELLED,
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
  POLICY_FLAG_IDEMPOTENT,
  POLICY_FLAG_JITTER_MASK,
  RESTORE_FLAG_ATTEMPTS_LOST,
  RESULT_OK,
  STATE_DONE,
  STATE_FREE,
  STATE_IN_FLIGHT,
  STATE_WAITING,
  BUDGET_FLAG_REFUND_ON_SUCCESS,
} from "./constants";
import { touch } from "./changes";
import { crc32 } from "./crc32";
import * as machine from "./machine";
import {
  BUDGET_AT,
  Budget,
  COUNTERS_AT,
  OPERATIONS_AT,
  Operation,
  POLICIES_AT,
  Policy,
  SHADOW,
  STATE,
  STATE_BYTES,
  clearState,
} from "./state";
import { Clock, isSpan, tickAfter, ticksUntil } from "./ticks";
import { position, put, readCleanly, refuse, startReading, startWriting, take } from "./varint";

const AREA: usize = memory.data(IMAGE_AREA_BYTES, 4);
const SMALLEST: u32 = IMAGE_HEADER_BYTES + IMAGE_CRC_BYTES;
const ANY: u32 = 0xffffffff;
const BUDGET_FIRST: u32 = <u32>(BUDGET_AT >> 2);
const BUDGET_FLAGS: u32 = <u32>((BUDGET_AT + offsetof<Budget>("flags")) >> 2);
const COUNTERS_FIRST: u32 = <u32>(COUNTERS_AT >> 2);
const POLICY_WORDS: u32 = <u32>(offsetof<Policy>() >> 2);
const MAX_ATTEMPTS_WORD: u32 = <u32>(offsetof<Policy>("maxAttempts") >> 2);
const POLICY_FLAGS_WORD: u32 = <u32>(offsetof<Policy>("flags") >> 2);
const TIMEOUT_WORD: u32 = <u32>(offsetof<Policy>("attemptTimeout") >> 2);
const OPERATION_WORDS: u32 = <u32>(offsetof<Operation>() >> 2);
const STATE_WORD: u32 = <u32>(offsetof<Operation>("_state") >> 2);
const ID_WORD: u32 = <u32>(offsetof<Operation>("id") >> 2);
const FIRST_TICK_WORD: u32 = <u32>(offsetof<Operation>("_nextAttemptAt") >> 2);
const LAST_TICK_WORD: u32 = <u32>(offsetof<Operation>("_deadline") >> 2);
const FIRST_POLICY_WORD: u32 = <u32>(POLICIES_AT >> 2);
const FIRST_OPERATION_WORD: u32 = <u32>(OPERATIONS_AT >> 2);
const TOTAL_WORDS: u32 = <u32>(STATE_BYTES >> 2);
// The largest value of an operation's words from STATE_WORD to ID_WORD - 1 (state,
// policy, attempt, lastOutcome, endReason, flags), one byte each, the state's lowest.
const OPERATION_SMALL_MAX: u64 =
  (<u64>STATE_DONE) |
  ((<u64>(LIMIT_POLICIES - 1)) << 8) |
  ((<u64>LIMIT_MAX_ATTEMPTS) << 16) |
  ((<u64>OUTCOME_TIMEOUT) << 24) |
  ((<u64>END_REASON_CANCELLED) << 32) |
  ((<u64>(OP_FLAG_DUE | OP_FLAG_HAS_DEADLINE | OP_FLAG_HANDED_OUT)) << 40);
// The opFlags each state allows, four bits per state.
const FLAGS_ALLOWED: u32 =
  ((OP_FLAG_DUE | OP_FLAG_HAS_DEADLINE) << (STATE_WAITING * 4)) |
  (OP_FLAG_HAS_DEADLINE << (STATE_IN_FLIGHT * 4)) |
  ((OP_FLAG_HAS_DEADLINE | OP_FLAG_HANDED_OUT) << (STATE_DONE * 4));

/** Byte offset of the image area in linear memory. */
export function imageAddress(): u32 {
  return <u32>AREA;
}

let saving: bool = false;
// Ticks are stored relative to this: save's now, or restore's now - elapsed.
let origin: u32 = 0;

// One field: saving, v is written; restoring, one is read (refused above max).
function value(v: u32, max: u32): u32 {
  if (saving) {
    put(v);
    return v;
  }
  v = take();
  if (v > max) refuse();
  return v;
}

// The state at `base` in image order, from the PRNG on (docs/ABI.md, Image format): word
// by word, each with its range; a record's first word (a policy's isSet, a slot's
// generation) or a slot's state of 0 leaves out the rest of the record.
function walk(base: usize): void {
  for (let w: u32 = 0; w < TOTAL_WORDS;) {
    let max: u32 = ANY;
    let min: u32 = 0;
    let rest: u32 = 0;
    let tick = false;
    if (w < FIRST_POLICY_WORD) {
      if (w >= BUDGET_FIRST && w < COUNTERS_FIRST)
        max = w == BUDGET_FLAGS ? BUDGET_FLAG_REFUND_ON_SUCCESS : LIMIT_MAX_SPAN;
    } else if (w < FIRST_OPERATION_WORD) {
      const j = (w - FIRST_POLICY_WORD) % POLICY_WORDS; // 0: isSet
      max =
        j == 0
          ? 1
          : j == MAX_ATTEMPTS_WORD
            ? LIMIT_MAX_ATTEMPTS
            : j == POLICY_FLAGS_WORD
              ? POLICY_FLAG_JITTER_MASK | POLICY_FLAG_IDEMPOTENT
              : LIMIT_MAX_SPAN;
      min = j == MAX_ATTEMPTS_WORD || j == TIMEOUT_WORD ? 1 : 0;
      rest = j == 0 ? POLICY_WORDS - 1 : 0;
    } else {
      const j = (w - FIRST_OPERATION_WORD) % OPERATION_WORDS; // 0: generation
      tick = j >= FIRST_TICK_WORD && j <= LAST_TICK_WORD;
      max =
        j == 0
          ? 0xffff
          : j < ID_WORD
            ? (<u32>(OPERATION_SMALL_MAX >> ((j - STATE_WORD) << 3))) & 0xff
            : tick
              ? ANY
              : LIMIT_MAX_SPAN;
      rest = j <= STATE_WORD ? OPERATION_WORDS - 1 - j : 0;
    }
    const at = base + ((<usize>w) << 2);
    const word = load<u32>(at);
    const v = value(tick ? <u32>ticksUntil(origin, word) : word, max);
    store<u32>(at, tick ? tickAfter(origin, v) : v);
    if (v < min) refuse();
    w += v == 0 ? rest + 1 : 1;
  }
}

/** Applies what is due by now, writes the image and returns its length, or NOT_INITIALIZED. */
export function save(now: u32): i32 {
  if (!machine.isInitialized()) return ERROR_NOT_INITIALIZED;
  machine.advance(now);
  saving = true;
  origin = now;
  startWriting(AREA + IMAGE_HEADER_BYTES);
  put(<u32>ticksUntil(now, Clock.now));
  put(machine.nextId());
  walk(STATE);
  const body = <u32>(position() - AREA);
  store<u8>(AREA, IMAGE_FORMAT_VERSION);
  store<u8>(AREA + 1, ABI_VERSION);
  store<u16>(AREA + 2, body + IMAGE_CRC_BYTES);
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
  if (length < SMALLEST || length > <u32>IMAGE_AREA_BYTES) return ERROR_IMAGE_LENGTH;
  if (load<u8>(AREA) != IMAGE_FORMAT_VERSION) return ERROR_IMAGE_FORMAT;
  if (load<u8>(AREA + 1) != ABI_VERSION) return ERROR_IMAGE_ABI;
  if (<u32>load<u16>(AREA + 2) != length) return ERROR_IMAGE_LENGTH;
  const body = length - IMAGE_CRC_BYTES;
  if (load<u32>(AREA + body) != crc32(AREA, body)) return ERROR_IMAGE_CRC;
  clearState(SHADOW);
  saving = false;
  origin = tickAfter(now, 0 - elapsed); // elapsed ticks before now
  startReading(AREA + IMAGE_HEADER_BYTES, AREA + body);
  const clock = tickAfter(origin, value(0, LIMIT_BACKSTEP_TOLERANCE));
  const nextId = value(0, LIMIT_MAX_SPAN);
  walk(SHADOW);
  checkShadow(clock);
  if (!readCleanly()) return ERROR_IMAGE_FIELD;
  for (let i: usize = 0; i < STATE_BYTES; i += 4) store<u32>(STATE + i, load<u32>(SHADOW + i));
  Clock.restore(clock);
  machine.restoreMachine(nextId);
  if (flags) machine.loseAttempts();
  machine.advance(now);
  touch();
  return RESULT_OK;
}

// A timer that must still be ahead of the saved clock: every comparison of ticks relies on
// live timers lying within MAX_SPAN ahead of the clock.
function expectAhead(clock: u32, t: u32): void {
  if (ticksUntil(clock, t) <= 0) refuse();
}

// The checks between fields (docs/ABI.md, restore, item 8), on the shadow.
function checkShadow(clock: u32): void {
  for (let slot = 0; slot < LIMIT_OPERATIONS; slot++) {
    const op = changetype<Operation>(SHADOW + OPERATIONS_AT + <usize>slot * offsetof<Operation>());
    const state = op.state;
    if (state == STATE_FREE) continue;
    // A policy id out of range was refused by the walk; masked, it still reads the shadow.
    const id = <usize>(op.policy & (LIMIT_POLICIES - 1));
    const policy = changetype<Policy>(SHADOW + POLICIES_AT + id * offsetof<Policy>());
    if (!policy.isSet || (op.endReason == END_REASON_NONE) != (state != STATE_DONE)) refuse();
    if (op.flags & ~(FLAGS_ALLOWED >> (state << 2))) refuse();
    if (state == STATE_WAITING && op.attempt == LIMIT_MAX_ATTEMPTS) refuse();
    const live = state != STATE_DONE;
    if (state == STATE_WAITING && !(op.flags & OP_FLAG_DUE)) expectAhead(clock, op.nextAttemptAt);
    if (state == STATE_IN_FLIGHT) expectAhead(clock, op.attemptDeadline);
    if (live && op.flags & OP_FLAG_HAS_DEADLINE) expectAhead(clock, op.deadline);
  }
}
