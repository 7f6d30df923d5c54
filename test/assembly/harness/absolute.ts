// Which answers are absolute ticks (docs/ABI.md, Time: wrap invariance): those that shift by
// k when every tick the host passes does, or when a restore rebases the clock by k.
import { Breaker, Field } from "../../../host/library/src/generated/abi.js";
import type { Snapshot } from "./snapshot.js";

const TICK_QUERIES = ["nextAttemptAt", "attemptDeadline", "deadline"];
const TICK_FIELDS: number[] = [Field.NEXT_ATTEMPT_AT, Field.ATTEMPT_DEADLINE, Field.DEADLINE];

/**
 * `value`, what fn(args) answered (or a snapshot's `fn(h)` with args [h]), shifted by k when
 * it is an absolute tick: an operation's timers (a live handle's; a bad one's answer stays),
 * an OPEN breaker's end. field answers an i32, the queries a u32.
 */
export function shiftTick(fn: string, args: number[], after: Snapshot, value: number, k: number): number {
  const valid = after[`state(${args[0]})`] > 0;
  if (fn === "field") return valid && TICK_FIELDS.includes(args[1] >>> 0) ? (value + k) | 0 : value;
  const open = fn === "breakEnds" && after[`breakerState(${args[0]})`] === Breaker.OPEN;
  return (TICK_QUERIES.includes(fn) && valid) || open ? (value + k) >>> 0 : value;
}
