// The ABI's implementations: numbers in, numbers out, no imports, no start function.
// generated/exports.ts exports them under the signatures of constants.json; the logic lives
// in the files beside this one; docs/ABI.md is the contract.
import {
  ABI_VERSION,
  BREAKER_OPEN,
  COUNTER_COUNT,
  LIMIT_SLOT_BITS,
  ERROR_BAD_COUNTER,
  ERROR_BAD_HANDLE,
  ERROR_BAD_POLICY,
  ERROR_NOT_INITIALIZED,
} from "./generated/constants";
import { touch } from "./changes";
import { budgetTokens } from "./budget";
import { counterValue } from "./counters";
import { resetMachine } from "./operations";
import { policyAt, policyRecord } from "./policy";
import { seedRandom } from "./random";
import { isInitialized } from "./ready";
import { BLOCK, BLOCK_BYTES, Operation, STATE, STATE_BYTES, copyWords } from "./state";
import { find } from "./table";
import { Clock } from "./ticks";

/** Wipes all state and seeds the PRNG; call once at start-up with a per-device seed. */
export function init(seedLo: u32, seedHi: u32): i32 {
  copyWords(STATE, STATE, 0, STATE_BYTES);
  seedRandom(seedLo, seedHi);
  Clock.reset();
  resetMachine();
  touch();
  return 0;
}

// The operation calls are operations.ts's own functions; generated/exports.ts exports them.
export { begin, poll, report, cancel, drop, linkUp, release, nextDue, ended } from "./operations";
export { save, imageAddress, restore } from "./image";
export { changes } from "./changes";
export { setPolicy, worstCase } from "./policy";
export { setBudget } from "./budget";

/** The slot (0 to OPERATIONS - 1) of a valid handle, or BAD_HANDLE. */
export function slot(handle: i32): i32 {
  return find(handle) == null ? ERROR_BAD_HANDLE : handle & ((1 << LIMIT_SLOT_BITS) - 1);
}

// Every query reads one word of the operation a handle names; for a bad handle `bad`
// (BAD_HANDLE, or 0 for the ticks).
function query(handle: i32, field: usize, bad: i32): i32 {
  const op = find(handle);
  return op != null ? load<i32>(changetype<usize>(op) + field) : bad;
}

/** The operation's state, or BAD_HANDLE. */
export function state(handle: i32): i32 {
  return query(handle, offsetof<Operation>("state"), ERROR_BAD_HANDLE);
}

/** The current attempt number (0 before the first), or BAD_HANDLE. */
export function attempt(handle: i32): i32 {
  return query(handle, offsetof<Operation>("attempt"), ERROR_BAD_HANDLE);
}

/** The end reason (NONE while live), or BAD_HANDLE. */
export function endReason(handle: i32): i32 {
  return query(handle, offsetof<Operation>("endReason"), ERROR_BAD_HANDLE);
}

/** The last attempt's outcome (NONE before any), or BAD_HANDLE. */
export function lastOutcome(handle: i32): i32 {
  return query(handle, offsetof<Operation>("lastOutcome"), ERROR_BAD_HANDLE);
}

/** The stable 31-bit operation id, or BAD_HANDLE. */
export function operationId(handle: i32): i32 {
  return query(handle, offsetof<Operation>("id"), ERROR_BAD_HANDLE);
}

/** The DUE, HAS_DEADLINE and HANDED_OUT bits, or BAD_HANDLE. */
export function opFlags(handle: i32): i32 {
  return query(handle, offsetof<Operation>("flags"), ERROR_BAD_HANDLE);
}

/** Tick of the next attempt; 0 for a bad handle. */
export function nextAttemptAt(handle: i32): u32 {
  return query(handle, offsetof<Operation>("nextAttemptAt"), 0);
}

/** Tick at which the attempt in flight times out; 0 for a bad handle. */
export function attemptDeadline(handle: i32): u32 {
  return query(handle, offsetof<Operation>("attemptDeadline"), 0);
}

/** Tick of the overall deadline; 0 for a bad handle. */
export function deadline(handle: i32): u32 {
  return query(handle, offsetof<Operation>("deadline"), 0);
}

/** The backoff level (failed attempts and drops since begin or since stable), or BAD_HANDLE. */
export function backoffLevel(handle: i32): i32 {
  return query(handle, offsetof<Operation>("level"), ERROR_BAD_HANDLE);
}

/** The policy's breaker state (CLOSED, OPEN, HALF_OPEN, PROBING), or NOT_INITIALIZED, BAD_POLICY. */
export function breakerState(policy: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const p = policyAt(policy);
  return p != null ? p.breakerState : ERROR_BAD_POLICY;
}

/** Tick at which the OPEN breaker's break ends; 0 when not OPEN, before init or for a bad policy. */
export function breakEnds(policy: u32): u32 {
  // OPEN only for a set policy after init (a refusal's code is negative).
  return breakerState(policy) == BREAKER_OPEN ? policyRecord(policy).breakEnds : 0;
}

/** A counter modulo 2^31, or NOT_INITIALIZED, BAD_COUNTER. */
export function counter(id: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  return id < <u32>COUNTER_COUNT ? counterValue(id) : ERROR_BAD_COUNTER;
}

/** Retry budget tokens in milli-tokens, or NOT_INITIALIZED. */
export function tokens(): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  return <i32>budgetTokens();
}

/** Byte offset of the state block (docs/ABI.md, State block) in linear memory. */
export function stateAddress(): u32 {
  return <u32>BLOCK;
}

/** Length of the state block in bytes. */
export function stateBytes(): u32 {
  return <u32>BLOCK_BYTES;
}

/** The ABI version of this module. */
export function abiVersion(): i32 {
  return ABI_VERSION;
}
