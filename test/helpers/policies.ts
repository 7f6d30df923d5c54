// Policies and helpers the module tests share.
import { Jitter, Outcome, State } from "../../host/library/src/generated/abi.js";
import { policyArgs, type PolicyFields as HostPolicyFields } from "../../host/library/src/policy.js";
import { create, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";

/** The host's policy fields, with the jitter mode as any number (tests loop over modes). */
export type PolicyFields = Omit<HostPolicyFields, "jitter"> & { jitter: number };

/** The seed article's example: 6 attempts, 3 s timeout, 1 s base doubling to 16 s. */
export const ARTICLE: PolicyFields = {
  maxAttempts: 6,
  attemptTimeout: 3000,
  baseDelay: 1000,
  maxDelay: 16000,
  throttleBaseDelay: 1000,
  deadline: 0,
  jitter: Jitter.NONE,
  idempotent: true,
};

/** A session that reconnects forever: a 500-tick connect timeout, waits from 1,000 doubling to
 * 8,000 ticks, no jitter (so a trace's ticks can be read off). */
export const RECONNECT: HostPolicyFields = {
  maxAttempts: 0,
  attemptTimeout: 500,
  baseDelay: 1000,
  maxDelay: 8000,
  throttleBaseDelay: 0,
  deadline: 0,
  jitter: "NONE",
  idempotent: false,
  session: true,
};

/** Sets policy `id` and insists the module took it. */
export function setPolicy(api: TickRetryApi, id: number, fields: Partial<PolicyFields> = {}): void {
  const p = { ...ARTICLE, ...fields };
  const code = api.setPolicy(id, ...policyArgs({ ...p, jitter: p.jitter as Jitter }));
  if (code !== 0) throw new Error(`setPolicy refused: ${code}`);
}

/** A fresh instance seeded `seed` with policy 0 set from `fields`, and one operation begun at
 * tick 0 whose first attempt the poll at tick 0 has started. */
export function inFlight(seed: bigint, fields: Partial<PolicyFields> = {}): { api: TickRetryApi; h: number } {
  const api = create(seed);
  setPolicy(api, 0, fields);
  const h = api.begin(0, 0);
  if (api.poll(0) !== h) throw new Error(`the poll at tick 0 did not start operation ${h}`);
  return { api, h };
}

/** Begins one operation under `policy`, fails every attempt at once with `outcome`, and
 * returns the wait before each retry until the operation ends. */
export function retryWaits(api: TickRetryApi, policy: number, outcome: number = Outcome.TRANSIENT): number[] {
  let now = 0;
  const h = api.begin(policy, now);
  const waits: number[] = [];
  while (api.poll(now) === h) {
    api.report(h, api.attempt(h), outcome, 0, now);
    if (api.state(h) !== State.WAITING) break;
    waits.push(ticksUntil(now, api.nextAttemptAt(h)));
    now = api.nextAttemptAt(h);
  }
  return waits;
}
