// Manual control of a policy's breaker (docs/ABI.md, Circuit breaker): holdBreaker keeps it
// open for as long as the host says (maintenance, a destination known to be bad), as
// cockatiel's isolate() and Polly's manual control do; releaseBreaker lets a probe out, as
// the end of a break does.
import {
  BREAKER_ISOLATED,
  ERROR_BAD_POLICY,
  ERROR_NOT_INITIALIZED,
  ERROR_NOT_ISOLATED,
  RESULT_OK,
} from "./generated/constants";
import { halfOpen, isolate } from "./breaker";
import { touch } from "./changes";
import { policyAt } from "./policy-table";
import { isInitialized } from "./ready";
import { advance } from "./scan";
import { Policy } from "./state";

/** Holds the policy's breaker ISOLATED until releaseBreaker; OK, NOT_INITIALIZED or BAD_POLICY. */
export function holdBreaker(policy: u32, now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const found = policyAt(policy);
  if (found == null) return ERROR_BAD_POLICY;
  advance(now);
  isolate(policy, changetype<Policy>(found));
  return RESULT_OK;
}

/** Releases a held breaker: HALF_OPEN, its next attempt the probe; NOT_ISOLATED when not held. */
export function releaseBreaker(policy: u32, now: u32): i32 {
  if (!isInitialized()) return ERROR_NOT_INITIALIZED;
  const found = policyAt(policy);
  if (found == null) return ERROR_BAD_POLICY;
  const p = changetype<Policy>(found);
  // Nothing but these two calls and setPolicy moves a breaker in or out of ISOLATED, so the
  // check may precede the advance: a refused call changes nothing.
  if (p.breakerState != BREAKER_ISOLATED) return ERROR_NOT_ISOLATED;
  advance(now);
  halfOpen(policy);
  touch();
  return RESULT_OK;
}
