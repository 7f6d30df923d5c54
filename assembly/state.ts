// Where a device's state lives: one block of static memory of u32 words (docs/ABI.md, State
// block), so that a host can hold many devices' states and run each in one instance by
// copying its block in and out. The block opens with the words no image holds (the
// clock, the schedule summary, changes()), then the durable state, laid out in the order
// of the image (docs/ABI.md, Image format), field for field, so that save and restore walk
// it word by word (image.ts). restore first reads the whole image record by record into a
// scratch record and checks it there, and only then reads it again into the state, so a
// refused image changes nothing without a second copy of the state. All zeros is a fresh
// instance's state.
import { COUNTER_COUNT, LIMIT_OPERATIONS, LIMIT_POLICIES } from "./generated/constants";

/** One slot of the operation table (machine.ts), in the image's order: word i is field(handle, i). */
@unmanaged
export class Operation {
  generation: u32;
  state: u32;
  policy: u32;
  attempt: u32;
  lastOutcome: u32;
  endReason: u32;
  flags: u32;
  id: u32;
  nextAttemptAt: u32;
  attemptDeadline: u32;
  deadline: u32;
  previousDelay: u32;
  lastRetryCost: u32;
  /** The backoff level: failed attempts and drops since begin or since last stable. */
  level: u32;
}

/** One slot of the policy table (policy-table.ts): isSet, then the image's order. */
@unmanaged
export class Policy {
  isSet: u32;
  maxAttempts: u32;
  flags: u32;
  attemptTimeout: u32;
  baseDelay: u32;
  maxDelay: u32;
  throttleBaseDelay: u32;
  deadline: u32;
  stableAfter: u32;
  spread: u32;
  breakAfter: u32;
  breakBase: u32;
  breakCap: u32;
  maxRetryAfter: u32;
  // The policy's circuit breaker (breaker.ts).
  breakerState: u32;
  breakerFailures: u32;
  breakerOpens: u32;
  breakEnds: u32;
}

/** The bucket's fields, in setBudget's order with the tokens in initial's place (the image's). */
@unmanaged
export class Budget {
  capacity: u32;
  tokens: u32;
  retryCost: u32;
  timeoutRetryCost: u32;
  threshold: u32;
  failureCost: u32;
  firstAttemptDeposit: u32;
  successDeposit: u32;
  flags: u32;
}

/** xoshiro128**'s four words. */
@unmanaged
export class Random {
  s0: u32;
  s1: u32;
  s2: u32;
  s3: u32;
}

/** The clock (ticks.ts): the latest tick accepted, and whether one was. */
@unmanaged
export class ClockWords {
  now: u32;
  started: u32;
}

/** Whether init or restore has run (ready.ts), and the table's summary (table.ts). */
@unmanaged
export class ScheduleWords {
  initialized: u32;
  summary: u32;
  nextTimer: u32;
}

/** What changes() folds (changes.ts). */
@unmanaged
export class ChangesWords {
  touched: u32;
  moves: u32;
}

// The block: the words no image holds, then the durable state.
export const CLOCK_AT: usize = 0;
export const SCHEDULE_AT: usize = CLOCK_AT + offsetof<ClockWords>();
export const CHANGES_AT: usize = SCHEDULE_AT + offsetof<ScheduleWords>();
const DURABLE_AT: usize = CHANGES_AT + offsetof<ChangesWords>();

// The durable state's first four parts are u32 words: the next operation id, PRNG, budget, counters.
export const NEXT_ID_AT: usize = 0;
export const RANDOM_AT: usize = NEXT_ID_AT + 4;
export const BUDGET_AT: usize = RANDOM_AT + offsetof<Random>();
export const COUNTERS_AT: usize = BUDGET_AT + offsetof<Budget>();
export const POLICIES_AT: usize = COUNTERS_AT + <usize>COUNTER_COUNT * 4;
export const OPERATIONS_AT: usize = POLICIES_AT + <usize>LIMIT_POLICIES * offsetof<Policy>();
export const STATE_BYTES: usize = OPERATIONS_AT + <usize>LIMIT_OPERATIONS * offsetof<Operation>();

/** Writes 0 to the `bytes` (a multiple of 4) from `at` on. */
export function clearWords(at: usize, bytes: usize): void {
  for (let i: usize = 0; i < bytes; i += 4) store<u32>(at + i, 0);
}

/** The length of the block in bytes. */
export const BLOCK_BYTES: usize = DURABLE_AT + STATE_BYTES;
/** The whole block: one device. */
export const BLOCK: usize = memory.data(<i32>BLOCK_BYTES, 4);
/** The live durable state. */
export const STATE: usize = BLOCK + DURABLE_AT;
/** Where restore checks one record of an image (the largest record: the prefix). */
export const SCRATCH_BYTES: usize = POLICIES_AT;
export const SCRATCH: usize = memory.data(<i32>SCRATCH_BYTES, 4);
