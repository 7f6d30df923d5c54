// The state machine's one table. move() is the only writer of Operation.state (besides
// restore, which puts a saved table back whole), and it obeys TRANSITION_TABLE; what each
// state allows in an operation's flags is STATE_FLAGS beside it. Both are generated from
// assembly/constants.json ("transitions", "stateFlags"), which docs/ABI.md draws as the state
// diagram and the opFlags table.
//
// Theory of operation. The module is sans-IO: the host passes `now` into every call
// that needs time. Each such call first brings the clock to now and applies what has
// expired (scan.ts), then does its own work (operations.ts). A refused call (negative
// code) is refused before anything changes, except for the codes that depend on state
// (STALE_REPORT, NOT_LIVE, NOT_UP), which are decided after the clock has moved: time
// passing is never undone.
//
// Conditions made of cheap, pure comparisons are combined as bools with | and & rather
// than || and &&: no branch between them, which binaryen emits smaller (issue 18's size
// budget); both sides are always evaluated, so neither side may have an effect.
import {
  COUNTER_ENDED_SUCCEEDED,
  END_REASON_SUCCEEDED,
  EVENT_END,
  OP_FLAG_DUE,
  OP_FLAG_HELD,
  OP_FLAG_PROBE,
  STATE_FLAGS,
  TRANSITION_TABLE,
} from "./generated/constants";
import { halfOpen } from "./breaker";
import { touch } from "./changes";
import { count } from "./counters";
import { Operation } from "./state";
import { markStale } from "./table";

/** Takes op through `event` if its state allows it; false (and no change) otherwise. */
export function move(op: Operation, event: i32): bool {
  const entry = (<u32>(TRANSITION_TABLE >> (<u64>event * 8))) & 0xff;
  if ((entry & 0x1f & (1 << op.state)) == 0) return false;
  op.state = entry >> 5;
  markStale();
  touch();
  return true;
}

/** The opFlags bits an operation in `state` may have. */
export function flagsAllowed(state: u32): u32 {
  return (<u32>(STATE_FLAGS >> (<u64>state * 8))) & 0xff;
}

/**
 * Ends a live operation with `reason`; false when it had ended already. The probe in flight
 * ending so (cancel: a reported attempt is no longer the probe) gives its breaker back to
 * HALF_OPEN.
 */
export function end(op: Operation, reason: i32): bool {
  if (!move(op, EVENT_END)) return false;
  if (op.flags & OP_FLAG_PROBE) halfOpen(op.policy);
  op.endReason = reason;
  op.flags &= ~(OP_FLAG_DUE | OP_FLAG_HELD | OP_FLAG_PROBE);
  count(COUNTER_ENDED_SUCCEEDED + reason - END_REASON_SUCCEEDED);
  return true;
}
