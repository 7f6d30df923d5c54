// Constant names for people: the page, the logs and the traces show "WAITING", not 1.
import { Counter, EndReason, Error as AbiError, Outcome, Result, State } from "./generated/abi.js";

/**
 * The name of `value` in a constant group (Outcome, State and the like), or the number itself.
 * @example
 * ```ts
 * nameOf(Counter, 1); // "ATTEMPTS_STARTED" (1 is its id); a number with no name comes back as text
 * ```
 */
export function nameOf(group: Record<string, number>, value: number): string {
  return Object.keys(group).find((k) => group[k] === value) ?? String(value);
}

/**
 * A State value's name ("WAITING"), or the number as text.
 * @example
 * ```ts
 * stateName(api.state(h)); // "WAITING"
 * ```
 */
export const stateName = (v: number) => nameOf(State, v);
/**
 * An Outcome value's name ("TRANSIENT"), or the number as text.
 * @example
 * ```ts
 * outcomeName(api.lastOutcome(h)); // "TRANSIENT"
 * ```
 */
export const outcomeName = (v: number) => nameOf(Outcome, v);
/**
 * An EndReason value's name ("SUCCEEDED"), or the number as text.
 * @example
 * ```ts
 * endReasonName(api.endReason(h)); // "SUCCEEDED"
 * ```
 */
export const endReasonName = (v: number) => nameOf(EndReason, v);
/**
 * An Error code's name ("BAD_FIELD"), or the number as text.
 * @example
 * ```ts
 * errorName(Error.BAD_POLICY); // "BAD_POLICY": no such policy was set
 * ```
 */
export const errorName = (v: number) => nameOf(AbiError, v);
/**
 * What a call returned, by name: "OK", "NONE", an Error's name ("STALE_REPORT"), or the number as text.
 * @example
 * ```ts
 * resultName(api.report(h, 1, Outcome.SUCCESS, 0, now)); // "OK", or "STALE_REPORT" for a late one
 * ```
 */
export const resultName = (v: number) =>
  v === Result.OK || v === Result.NONE ? nameOf(Result, v) : errorName(v);

/** Every counter id with its name, COUNT left out. */
export const COUNTERS = Object.entries(Counter).filter(([name]) => name !== "COUNT");
