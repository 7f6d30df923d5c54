// The circuit breaker, one per policy (a policy stands for a destination), and the rule it
// imposes on waiting operations: while it is OPEN or PROBING, an operation whose wait is
// over is HELD instead of DUE (docs/ABI.md, Circuit breaker). Its modes live in the policy
// record, so they are part of the image; HELD and PROBE live in the operations' flags.
import {
  BREAKER_CLOSED,
  BREAKER_HALF_OPEN,
  BREAKER_ISOLATED,
  BREAKER_OPEN,
  BREAKER_PROBING,
  COUNTER_BREAKER_OPENS,
  COUNTER_PROBES,
  JITTER_EQUAL,
  LIMIT_MAX_ATTEMPTS,
  LIMIT_POLICIES,
  OP_FLAG_DUE,
  OP_FLAG_HAS_DEADLINE,
  OP_FLAG_HELD,
  OP_FLAG_PROBE,
  OUTCOME_PERMANENT,
  OUTCOME_SUCCESS,
} from "./generated/constants";
import { jitteredDelay } from "./backoff";
import { touch } from "./changes";
import { count } from "./counters";
import { policyOf, policyRecord } from "./policy-table";
import { spreadDraw } from "./spread";
import { Operation, Policy } from "./state";
import { SLOTS, SLOTS_END, expired, markStale, noteTimer } from "./table";
import { clock, tickAfter } from "./ticks";

/** True when the policy's breaker lets an attempt start: CLOSED or HALF_OPEN, the even states
 * (the odd ones, OPEN, PROBING and ISOLATED, hold; scripts/gen/abi.ts checks the numbering). */
export function letsStart(p: Policy): bool {
  return (p.breakerState & 1) == 0;
}

/**
 * A waiting operation starts `wait` ticks from now: DUE (or HELD) at once when wait is 0. Its
 * timers go into the summary: a scan's retry or drop is not visited again (outside a scan
 * the summary is stale anyway).
 */
export function startAt(op: Operation, wait: u32): void {
  op.nextAttemptAt = tickAfter(clock.now, wait);
  op.flags &= ~(OP_FLAG_DUE | OP_FLAG_HELD);
  if (op.flags & OP_FLAG_HAS_DEADLINE) noteTimer(op.deadline);
  markStale();
  // A return, not an else: wasm3 compiles each else into a code page of its own.
  if (wait == 0) {
    holdOrDue(op);
    return;
  }
  noteTimer(op.nextAttemptAt);
}

// The breaker of policy id enters `state`: each of its operations that is DUE or HELD (only
// WAITING ones are) is so again as the new state says (holdOrDue), and none is a probe any
// longer: each caller moves the breaker out of PROBING, or finds no probe (onAttemptStart
// marks its own after).
function enter(id: u32, state: u32): void {
  policyRecord(id).breakerState = state;
  for (let at = SLOTS; at < SLOTS_END; at += offsetof<Operation>()) {
    const op = changetype<Operation>(at);
    if (op.policy != id) continue;
    const flags = op.flags;
    op.flags = flags & ~(OP_FLAG_DUE | OP_FLAG_HELD | OP_FLAG_PROBE);
    if (flags & (OP_FLAG_DUE | OP_FLAG_HELD)) holdOrDue(op);
  }
  markStale();
}

/** The break is over (its end passed, or linkUp): the next attempt to start is the probe. */
export function halfOpen(id: u32): void {
  enter(id, BREAKER_HALF_OPEN);
}

/**
 * Every OPEN breaker whose break has passed (every one, with `all`: a clock fault or
 * linkUp) becomes HALF_OPEN; the others' ends are noted in the summary. True when one did.
 */
export function endBreaks(all: bool): bool {
  let ended = false;
  // A policy never set has a CLOSED breaker (all its words are 0).
  for (let id: u32 = 0; id < <u32>LIMIT_POLICIES; id++) {
    const p = policyRecord(id);
    if (p.breakerState != BREAKER_OPEN) continue;
    if (expired(p.breakEnds, all)) {
      halfOpen(id);
      ended = true;
    }
  }
  return ended;
}

/** setPolicy: CLOSED with nothing counted; what it held is DUE, no attempt is its probe. */
export function resetBreaker(id: u32, p: Policy): void {
  p.breakerFailures = 0;
  p.breakerOpens = 0;
  enter(id, BREAKER_CLOSED);
}

/**
 * holdBreaker: ISOLATED until released. What was DUE is HELD; an attempt in flight is no
 * probe (its outcome no longer moves the breaker); the count of opens stays, so a failed
 * probe after the release breaks for longer.
 */
export function isolate(id: u32, p: Policy): void {
  p.breakerFailures = 0;
  touch();
  enter(id, BREAKER_ISOLATED);
}

/** poll starts op's attempt: under HALF_OPEN it is the probe, and the others wait for it. */
export function onAttemptStart(id: u32, p: Policy, op: Operation): void {
  if (p.breakerState != BREAKER_HALF_OPEN) return;
  count(COUNTER_PROBES);
  enter(id, BREAKER_PROBING);
  op.flags |= OP_FLAG_PROBE;
}

/**
 * The attempt of op in flight ended with `outcome` (its last outcome now): the breaker's
 * success and failure rules. An ISOLATED breaker ignores outcomes: only releaseBreaker (or
 * setPolicy) ends it.
 */
export function onAttemptEnd(op: Operation, outcome: i32): void {
  const id = op.policy;
  const p = policyRecord(id);
  op.lastOutcome = outcome;
  const probe = op.flags & OP_FLAG_PROBE;
  op.flags &= ~OP_FLAG_PROBE;
  if (p.breakerState == BREAKER_ISOLATED) return;
  // Returns rather than elses: wasm3 compiles each else into a code page of its own.
  if (outcome == OUTCOME_SUCCESS) {
    p.breakerFailures = 0;
    if (p.breakerState != BREAKER_CLOSED) close(id, p);
    return;
  }
  if (outcome == OUTCOME_PERMANENT) {
    // The destination answered; the request was at fault: another attempt probes.
    if (probe) halfOpen(id);
    return;
  }
  // A failed probe opens it again; a CLOSED breaker opens after breakAfter failures in a row.
  if (!probe) {
    if ((p.breakerState != BREAKER_CLOSED) | (p.breakAfter == 0)) return;
    if (++p.breakerFailures < p.breakAfter) return;
  }
  open(id, p);
}

// Opens for a break that doubles with every open since the last close, EQUAL-jittered so
// that breakers opened together do not all probe together. A break of 0 ticks (breakBase or
// breakCap 0) is over as it begins: the breaker is HALF_OPEN at once, so that no advance at
// the same tick finds a break still to end (an advance then changes nothing a second time).
function open(id: u32, p: Policy): void {
  p.breakerFailures = 0;
  p.breakerOpens = min(p.breakerOpens + 1, LIMIT_MAX_ATTEMPTS);
  const wait = jitteredDelay(JITTER_EQUAL, p.breakBase, p.breakCap, p.breakerOpens, 0);
  p.breakEnds = tickAfter(clock.now, wait);
  count(COUNTER_BREAKER_OPENS);
  if (wait != 0) noteTimer(p.breakEnds); // within a scan; outside one the summary is stale anyway
  enter(id, wait != 0 ? BREAKER_OPEN : BREAKER_HALF_OPEN);
}

// Closes: the destination answered. What waited for it (DUE or HELD: WAITING operations
// only) resumes within the spread window. A probe still in flight (another attempt's
// success closed the breaker) is a probe no longer: a CLOSED breaker has none, and its
// failure counts as any other's (an image holds no probe outside PROBING). The success's own
// move (report) marks the summary stale.
function close(id: u32, p: Policy): void {
  p.breakerState = BREAKER_CLOSED;
  p.breakerOpens = 0;
  touch();
  for (let at = SLOTS; at < SLOTS_END; at += offsetof<Operation>()) {
    const op = changetype<Operation>(at);
    if (op.policy != id) continue;
    op.flags &= ~OP_FLAG_PROBE;
    if (op.flags & (OP_FLAG_DUE | OP_FLAG_HELD)) startAt(op, spreadDraw(p));
  }
}

/** A waiting operation's wait is over: DUE if its breaker lets it start, else HELD. */
export function holdOrDue(op: Operation): void {
  op.flags |= letsStart(policyOf(op)) ? OP_FLAG_DUE : OP_FLAG_HELD;
}
