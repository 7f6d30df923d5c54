// The operation table: LIMIT_OPERATIONS slots in static memory, named by handles, and the
// schedule summary that keeps an idle poll O(1). A handle is (generation << SLOT_BITS) |
// slot, so a released or reused slot refuses its old handles.
import {
  LIMIT_MAX_SPAN,
  LIMIT_OPERATIONS,
  LIMIT_SLOT_BITS,
  OP_FLAG_DUE,
  STATE_FREE,
  STATE_WAITING,
} from "./generated/constants";
import { BLOCK, OPERATIONS_AT, Operation, SCHEDULE_AT, STATE, ScheduleWords } from "./state";
import { Clock, clock, tickAfter, ticksUntil } from "./ticks";

/** The first slot's address; the others follow it up to SLOTS_END. A loop over the table
 * steps through these addresses rather than call slotAt for each. */
export const SLOTS: usize = STATE + OPERATIONS_AT;
export const SLOTS_END: usize = SLOTS + <usize>LIMIT_OPERATIONS * offsetof<Operation>();
const SLOT_MASK: i32 = (1 << LIMIT_SLOT_BITS) - 1;

/** The operation in a slot (0 to OPERATIONS - 1). */
export function slotAt(slot: i32): Operation {
  return changetype<Operation>(SLOTS + <usize>slot * offsetof<Operation>());
}

/** The handle of the operation in `slot`. */
export function handleOf(slot: i32, op: Operation): i32 {
  return ((<i32>op.generation) << LIMIT_SLOT_BITS) | slot;
}

/** The operation a handle names, or null for a handle never issued or already released. */
export function find(handle: i32): Operation | null {
  // A slot in use has a generation of 1 to 65535: a negative handle, or one of
  // generation 0 or above 65535, matches none.
  const op = slotAt(handle & SLOT_MASK);
  return (op.state != STATE_FREE) & (<u32>op.generation == (<u32>handle) >> LIMIT_SLOT_BITS) ? op : null;
}

/**
 * When the next timer fires: a summary of the table and the breakers (in the state block),
 * so that an idle poll costs O(1) whatever they hold. summary holds TIMER when a timer is
 * pending. nextTimer is the tick before which no call's advance can change anything: the
 * earliest timer (none: MAX_SPAN after the clock, where a scan then finds nothing), or the
 * clock itself when something is DUE or the summary is stale (after every transition and
 * every change of a breaker or of DUE outside the scan), so that the next advance scans
 * again (scan.ts). HANDED_OUT (ended) is not summarised.
 */
export const schedule = changetype<ScheduleWords>(BLOCK + SCHEDULE_AT);

/** The summary no longer holds: the next advance scans. */
export function markStale(): void {
  schedule.nextTimer = clock.now;
}

// The earliest timer noted since startSummary: scratch of one scan, which writers that mark
// the summary stale (setting nextTimer) may call during the scan.
let earliest: u32 = 0;

/** Starts a summary at the clock. */
export function startSummary(): void {
  schedule.summary = 0;
  earliest = tickAfter(clock.now, LIMIT_MAX_SPAN);
}

export function noteTimer(t: u32): void {
  schedule.summary |= TIMER;
  if (ticksUntil(earliest, t) < 0) earliest = t;
}

/** True when timer t has passed (Clock.hasExpired); otherwise it is noted in the summary. */
export function expired(t: u32, fault: bool): bool {
  if (Clock.hasExpired(t, fault)) return true;
  noteTimer(t);
  return false;
}

/**
 * The first slot whose operation is in `state` and, of `flags`, has DUE set and every other
 * clear (firstDue: DUE; ended: not HANDED_OUT), or OPERATIONS.
 */
export function firstSlot(state: u32, flags: u32): i32 {
  let slot = 0;
  for (let at = SLOTS; slot < LIMIT_OPERATIONS; slot++, at += offsetof<Operation>()) {
    const op = changetype<Operation>(at);
    if ((op.state == state) & ((op.flags & flags) == (flags & OP_FLAG_DUE))) break;
  }
  return slot;
}

/** The first slot whose operation is DUE (WAITING: DUE marks no other), or OPERATIONS. */
export function firstDue(): i32 {
  return firstSlot(STATE_WAITING, OP_FLAG_DUE);
}

/** Ends a summary; while an operation is DUE, every advance scans again (poll starts it). */
export function endSummary(): void {
  schedule.nextTimer = earliest;
  if (firstDue() < LIMIT_OPERATIONS) markStale();
}

// schedule.summary's bit.
export const TIMER: u32 = 1;
