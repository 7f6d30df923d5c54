// The policy table: LIMIT_POLICIES slots in static memory (state.ts), set through setPolicy
// (policy.ts). Each slot also holds its destination's circuit breaker (breaker.ts), which
// reads the table as policy.ts writes it.
import { LIMIT_POLICIES } from "./generated/constants";
import { Operation, POLICIES_AT, Policy, STATE } from "./state";

const POLICIES: usize = STATE + POLICIES_AT;

/** The policy in slot id, or null when id is out of range or the slot was never set. */
export function policyAt(id: u32): Policy | null {
  if (id >= <u32>LIMIT_POLICIES) return null;
  const p = changetype<Policy>(POLICIES + id * offsetof<Policy>());
  return p.isSet ? p : null;
}

/** The record of policy slot id (0 to POLICIES - 1), set or not. */
export function policyRecord(id: u32): Policy {
  return changetype<Policy>(POLICIES + id * offsetof<Policy>());
}

/** The policy of a live operation (set: an operation's policy is never unset). */
export function policyOf(op: Operation): Policy {
  return policyRecord(op.policy);
}
