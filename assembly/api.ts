// The ABI's implementations: numbers in, numbers out, no imports, no start function.
// generated/exports.ts exports them under the signatures of constants.json; the logic lives
// in the files beside this one; docs/ABI.md is the contract.
import {
  ABI_VERSION,
  BREAKER_OPEN,
  COUNTER_COUNT,
  FIELD_COUNT,
  LIMIT_SLOT_BITS,
  ERROR_BAD_COUNTER,
  ERROR_BAD_FIELD,
  ERROR_BAD_HANDLE,
  ERROR_BAD_POLICY,
  ERROR_NOT_INITIALIZED,
} from "./generated/constants";
import { touch } from "./changes";
import { budgetOff, budgetTokens } from "./budget";
import { counterValue } from "./counters";
import { resetMachine } from "./operations";
import { policyAt, policyRecord } from "./policy-table";
import { seedRandom } from "./random";
import { isInitialized } from "./ready";
import { BLOCK, BLOCK_BYTES, STATE, STATE_BYTES, clearWords } from "./state";
import { find } from "./table";
import { Clock } from "./ticks";

/** Wipes all state and seeds the PRNG; call once at start-up with a per-device seed. */
export function init(seedLo: u32, seedHi: u32): i32 {
  clearWords(STATE, STATE_BYTES);
  seedRandom(seedLo, seedHi);
  budgetOff();
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
export { holdBreaker, releaseBreaker } from "./breaker-control";

/** The slot (0 to OPERATIONS - 1) of a valid handle, or BAD_HANDLE. */
export function slot(handle: i32): i32 {
  return find(handle) == null ? ERROR_BAD_HANDLE : handle & ((1 << LIMIT_SLOT_BITS) - 1);
}

/** Field `which` (FIELD_*: the slot's words in image order) of the operation a handle names. */
export function field(handle: i32, which: u32): i32 {
  const op = find(handle);
  if (op == null) return ERROR_BAD_HANDLE;
  if (which >= <u32>FIELD_COUNT) return ERROR_BAD_FIELD;
  return load<i32>(changetype<usize>(op) + ((<usize>which) << 2));
}

/** The policy's breaker state (CLOSED, OPEN, HALF_OPEN, PROBING, ISOLATED), or NOT_INITIALIZED, BAD_POLICY. */
export function breakerState(policy: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const p = policyAt(policy);
  if (p == null) return ERROR_BAD_POLICY;
  return p.breakerState;
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
