// Bringing the clock to now and applying what has expired (docs/ABI.md, Time): breaks that
// end, deadlines, waits that end, attempt timeouts, sessions that became stable. The table
// is scanned only when a timer expired, the clock faulted or a writer marked the summary
// stale; otherwise an advance is a clock step and two checks (and an idle poll not even
// that: operations.ts).
import {
  COUNTER_ATTEMPT_TIMEOUTS,
  COUNTER_CLOCK_FAULTS,
  END_REASON_DEADLINE,
  OP_FLAG_DUE,
  OP_FLAG_HAS_DEADLINE,
  OP_FLAG_HELD,
  OUTCOME_AMBIGUOUS,
  OUTCOME_TIMEOUT,
  STATE_IN_FLIGHT,
  STATE_UP,
  STATE_WAITING,
} from "./generated/constants";
import { endBreaks, holdOrDue } from "./breaker";
import { count } from "./counters";
import { end } from "./machine";
import { policyOf } from "./policy-table";
import { dropSession, fail } from "./retry";
import { Operation } from "./state";
import { SLOTS, SLOTS_END, endSummary, expired, noteTimer, schedule, startSummary } from "./table";
import { Clock, clock, tickAfter, tickReached } from "./ticks";

// The live states, one bit each.
const LIVE: u32 = (1 << STATE_WAITING) | (1 << STATE_IN_FLIGHT) | (1 << STATE_UP);

/** Brings the clock to now and applies what has expired. */
export function advance(now: u32): void {
  // The first advance after init sets the clock anywhere: the summary is of no use then.
  const started = clock.started != 0;
  const fault = Clock.advance(now);
  if (fault | !started | tickReached(clock.now, schedule.nextTimer)) scan(fault, false);
}

/** Every attempt in flight fails AMBIGUOUS and every UP session drops, in slot order (restore). */
export function loseAttempts(): void {
  scan(false, true);
}

// Visits every breaker, then every slot in order, applying what expired (everything on a
// clock fault, counted when operations were live), and summarises what it leaves. With
// `lost`, attempts and connections are lost instead of timed out (restore).
function scan(fault: bool, lost: bool): void {
  let live: u32 = 0;
  startSummary();
  endBreaks(fault);
  for (let at = SLOTS; at < SLOTS_END; at += offsetof<Operation>()) {
    const op = changetype<Operation>(at);
    const state = op.state;
    live |= LIVE >> state;
    // One visit at most (state is the state before it); no else: wasm3 compiles each else
    // into a code page of its own.
    if (state == STATE_WAITING) visitWaiting(op, fault);
    if (state == STATE_IN_FLIGHT) visitInFlight(op, fault, lost);
    if (state == STATE_UP) visitUp(op, fault, lost);
  }
  if (fault & ((live & 1) != 0)) count(COUNTER_CLOCK_FAULTS);
  endSummary();
}

// Each visit notes the timers it leaves pending, and a retry or a drop notes its own
// (startAt). A later slot's visit may open a breaker and hold a DUE operation, or let a held
// one go, but never changes a timer noted here: endSummary collects DUE at the end. A held or
// DUE operation has no wait of its own (a held one waits on its breaker's break or probe).
function visitWaiting(op: Operation, fault: bool): void {
  if (op.flags & OP_FLAG_HAS_DEADLINE) {
    if (expired(op.deadline, fault)) {
      end(op, END_REASON_DEADLINE);
      return;
    }
  }
  if (op.flags & (OP_FLAG_DUE | OP_FLAG_HELD)) return;
  if (expired(op.nextAttemptAt, fault)) holdOrDue(op);
}

// One call of fail for both: a lost attempt fails AMBIGUOUS (restore's scan has no fault).
function visitInFlight(op: Operation, fault: bool, lost: bool): void {
  if (!lost) {
    if (!expired(op.attemptDeadline, fault)) return;
    count(COUNTER_ATTEMPT_TIMEOUTS);
  }
  fail(op, lost ? OUTCOME_AMBIGUOUS : OUTCOME_TIMEOUT, 0, fault);
}

// A stable session (level 0) has no timer at all.
function visitUp(op: Operation, fault: bool, lost: bool): void {
  if (op.level != 0) {
    const stable = tickAfter(op.nextAttemptAt, policyOf(op).stableAfter);
    if (Clock.hasExpired(stable, fault)) op.level = 0;
    else if (!lost) noteTimer(stable);
  }
  if (lost) dropSession(op);
}
