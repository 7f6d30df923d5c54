// What the peers' test cases need from the module: one operation driven attempt by attempt
// (each attempt's outcome given, the clock jumped to each retry), and what it left behind.
import { EndReason, State } from "../../host/library/src/generated/abi.js";
import {
  budgetArgs,
  policyArgs,
  type BudgetFields,
  type PolicyFields,
} from "../../host/library/src/policy.js";
import { create, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";

/** A policy with every field a peer leaves unsaid at a neutral value. */
export function peerPolicy(fields: Partial<PolicyFields>): PolicyFields {
  return {
    maxAttempts: 0,
    attemptTimeout: 60_000,
    baseDelay: 0,
    maxDelay: 0,
    throttleBaseDelay: 0,
    deadline: 0,
    jitter: "NONE",
    idempotent: true,
    ...fields,
  };
}

/** An AWS-shaped budget in milli-tokens (1 quota unit = 1000). */
export function quota(capacity: number, fields: Partial<BudgetFields> = {}): BudgetFields {
  return {
    capacity: capacity * 1000,
    initial: capacity * 1000,
    retryCost: 0,
    timeoutRetryCost: 0,
    threshold: 0,
    failureCost: 0,
    firstAttemptDeposit: 0,
    successDeposit: 0,
    refundOnSuccess: true,
    ...fields,
  };
}

export interface Run {
  api: TickRetryApi;
  /** The wait before each retry, in ticks. */
  waits: number[];
  /** The attempts started. */
  attempts: number;
  endReason: number;
  /** The operation's state when the outcomes ran out (DONE, or WAITING for more). */
  state: number;
}

/** Sets policy 0 (and the budget) on a fresh instance, or on `api` when given. */
export function configured(policy: PolicyFields, budget?: BudgetFields, api = create(7n)): TickRetryApi {
  if (api.setPolicy(0, ...policyArgs(policy)) !== 0) throw new Error("setPolicy refused the peer's policy");
  if (budget && api.setBudget(...budgetArgs(budget)) !== 0)
    throw new Error("setBudget refused the peer's budget");
  return api;
}

/** Where each instance's last runOperation left its clock: the next one begins there, so
 * that a wait is measured from the module's own clock rather than from an earlier tick. */
const clocks = new WeakMap<TickRetryApi, number>();

/** Runs one operation under policy 0 of `api`, its attempts meeting `outcomes` in turn; it
 * begins at `start`, by default where the instance's last operation ended. */
export function runOperation(
  api: TickRetryApi,
  outcomes: readonly number[],
  start = clocks.get(api) ?? 0,
  retryAfter = 0,
): Run {
  let now = start;
  const h = api.begin(0, now);
  const waits: number[] = [];
  let attempts = 0;
  for (const outcome of outcomes) {
    if (api.poll(now) !== h) break;
    attempts++;
    api.report(h, api.attempt(h), outcome, retryAfter, now);
    if (api.state(h) !== State.WAITING) break;
    waits.push(ticksUntil(now, api.nextAttemptAt(h)));
    now = api.nextAttemptAt(h);
  }
  const run = { api, waits, attempts, endReason: api.endReason(h), state: api.state(h) };
  // One still WAITING is cancelled: an instance can run more operations than its slots.
  if (run.state !== State.DONE) api.cancel(h, now);
  api.release(h);
  clocks.set(api, now);
  return run;
}

export { EndReason };
