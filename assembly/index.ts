// The ABI surface of tickretry: numbers in, numbers out, no imports, no start function.
// Logic lives in the files beside this one; docs/ABI.md is the contract.
import {
  ABI_VERSION,
  COUNTER_COUNT,
  LIMIT_SLOT_BITS,
  ERROR_BAD_COUNTER,
  ERROR_BAD_HANDLE,
  ERROR_NOT_INITIALIZED,
} from "./generated/constants";
import { touch } from "./changes";
import { budgetTokens, setBudget as setBudgetFields } from "./budget";
import { classifyHttp as classify } from "./classify";
import { counterValue } from "./counters";
import * as machine from "./machine";
import { seedRandom } from "./random";
import { BLOCK, BLOCK_BYTES, Operation, STATE, STATE_BYTES, copyWords } from "./state";
import { Clock } from "./ticks";

/** Wipes all state and seeds the PRNG; call once at start-up with a per-device seed. */
export function init(seedLo: u32, seedHi: u32): i32 {
  copyWords(STATE, STATE, 0, STATE_BYTES);
  seedRandom(seedLo, seedHi);
  Clock.reset();
  machine.resetMachine();
  touch();
  return 0;
}

/** Sets the device-wide retry budget in milli-tokens (capacity 0: off). */
export function setBudget(
  capacity: u32,
  initial: u32,
  retryCost: u32,
  timeoutRetryCost: u32,
  threshold: u32,
  failureCost: u32,
  firstAttemptDeposit: u32,
  successDeposit: u32,
  flags: u32,
): i32 {
  if (!machine.isInitialized()) return ERROR_NOT_INITIALIZED;
  return setBudgetFields(
    capacity,
    initial,
    retryCost,
    timeoutRetryCost,
    threshold,
    failureCost,
    firstAttemptDeposit,
    successDeposit,
    flags,
  );
}

// The operation calls are machine.ts's own functions, exported as they are.
export { begin, poll, report, cancel, release, nextDue, ended } from "./machine";
export { save, imageAddress, restore } from "./image";
export { changes } from "./changes";
export { setPolicy, worstCase } from "./policy";

/** The slot (0 to OPERATIONS - 1) of a valid handle, or BAD_HANDLE. */
export function slot(handle: i32): i32 {
  return machine.find(handle) == null ? ERROR_BAD_HANDLE : handle & ((1 << LIMIT_SLOT_BITS) - 1);
}

// Every query reads one word of the operation a handle names. For a bad handle the ticks
// (the fields from nextAttemptAt on) read 0, the others BAD_HANDLE.
function query(handle: i32, field: usize): i32 {
  const op = machine.find(handle);
  if (op != null) return load<i32>(changetype<usize>(op) + field);
  return field >= offsetof<Operation>("nextAttemptAt") ? 0 : ERROR_BAD_HANDLE;
}

/** The operation's state, or BAD_HANDLE. */
export function state(handle: i32): i32 {
  return query(handle, offsetof<Operation>("state"));
}

/** The current attempt number (0 before the first), or BAD_HANDLE. */
export function attempt(handle: i32): i32 {
  return query(handle, offsetof<Operation>("attempt"));
}

/** The end reason (NONE while live), or BAD_HANDLE. */
export function endReason(handle: i32): i32 {
  return query(handle, offsetof<Operation>("endReason"));
}

/** The last attempt's outcome (NONE before any), or BAD_HANDLE. */
export function lastOutcome(handle: i32): i32 {
  return query(handle, offsetof<Operation>("lastOutcome"));
}

/** The stable 31-bit operation id, or BAD_HANDLE. */
export function operationId(handle: i32): i32 {
  return query(handle, offsetof<Operation>("id"));
}

/** The DUE, HAS_DEADLINE and HANDED_OUT bits, or BAD_HANDLE. */
export function opFlags(handle: i32): i32 {
  return query(handle, offsetof<Operation>("flags"));
}

/** Tick of the next attempt; 0 for a bad handle. */
export function nextAttemptAt(handle: i32): u32 {
  return query(handle, offsetof<Operation>("nextAttemptAt"));
}

/** Tick at which the attempt in flight times out; 0 for a bad handle. */
export function attemptDeadline(handle: i32): u32 {
  return query(handle, offsetof<Operation>("attemptDeadline"));
}

/** Tick of the overall deadline; 0 for a bad handle. */
export function deadline(handle: i32): u32 {
  return query(handle, offsetof<Operation>("deadline"));
}

/** The outcome of an HTTP status, or BAD_STATUS. */
export function classifyHttp(status: u32, hasRetryAfter: u32): i32 {
  return classify(status, hasRetryAfter);
}

/** A counter modulo 2^31, or NOT_INITIALIZED, BAD_COUNTER. */
export function counter(id: u32): i32 {
  if (!machine.isInitialized()) return ERROR_NOT_INITIALIZED;
  return id < <u32>COUNTER_COUNT ? counterValue(id) : ERROR_BAD_COUNTER;
}

/** Retry budget tokens in milli-tokens, or NOT_INITIALIZED. */
export function tokens(): i32 {
  if (!machine.isInitialized()) return ERROR_NOT_INITIALIZED;
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
