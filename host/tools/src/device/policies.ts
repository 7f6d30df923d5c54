// The device's retry policies and budget: the firmware's, from boards/app/config.json
// (generated/app-config.ts), set at boot. Spans are ms at scale 1; tests set a quicker policy
// of their own so a whole retry story takes a second or two.
import {
  AWS_STANDARD_BUDGET,
  configure,
  NO_BUDGET,
  type BudgetFields,
  type PolicyFields,
  type TickRetryApi,
} from "tickretry";
import { BROKER_SESSION, BUDGET, UPLOAD_MQTT_BREAKER } from "./generated/app-config.js";

export { BROKER, UPLOAD } from "./generated/app-config.js";

/** Policy slot of the periodic sensor upload. */
export const UPLOAD_POLICY = 0;

export type BudgetName = "firmware" | "aws" | "off";

/** The budget presets: the firmware's (the 10% budget), AWS SDK standard mode (500 tokens, retry 5, timeout retry 10), or none. */
const BUDGETS: Record<BudgetName, BudgetFields> = {
  firmware: BUDGET,
  aws: AWS_STANDARD_BUDGET,
  off: NO_BUDGET,
};

/** The fields of a budget preset (BudgetFields: milli-tokens). */
export const budgetFields = (name: BudgetName): BudgetFields => BUDGETS[name];

/** Every span of `policy` times `scale`, at least 1 ms for the attempt timeout. */
export function scaled(policy: PolicyFields, scale: number): PolicyFields {
  const s = (ms: number) => Math.round(ms * scale);
  return {
    ...policy,
    attemptTimeout: Math.max(1, s(policy.attemptTimeout)),
    baseDelay: s(policy.baseDelay),
    maxDelay: s(policy.maxDelay),
    throttleBaseDelay: s(policy.throttleBaseDelay),
    deadline: s(policy.deadline),
    ...(policy.stableAfter !== undefined && { stableAfter: s(policy.stableAfter) }),
    ...(policy.spread !== undefined && { spread: s(policy.spread) }),
  };
}

/** Sets the upload policy and the budget; throws on a refused field (a bug here, not input). */
export function configureUpload(api: TickRetryApi, policy: PolicyFields, budget: BudgetName): void {
  configure(api, `the upload policy with the ${budget} budget`, UPLOAD_POLICY, policy, BUDGETS[budget]);
}

/**
 * How long a broker session that ended (the broker refused the login: CONNACK 4 or 5) stays
 * ended before a new one begins, ms (boards/app/config.json, 1 h); new broker settings begin
 * one at once.
 */
export const BROKER_REFUSED_HOLD_MS = BROKER_SESSION.refusedHoldMs;

/** Policy slot of the broker connection (the MQTT transport's session). */
export const BROKER_POLICY = 1;

/**
 * The upload policy over MQTT: the same, kicked by linkUp when the broker session comes up
 * (an upload that waited out the outage resumes within its spread, by default its base
 * delay and at least 100 ms, rather than at the end of its backoff), and with the config's
 * breaker: after 2 failed attempts in a row (a broker gone away fails every publish at
 * once) no upload attempt starts until a probe gets through, so uploads begun before the
 * drop wait instead of spending their attempts; linkUp ends the break.
 */
export function mqttUpload(policy: PolicyFields): PolicyFields {
  const b = UPLOAD_MQTT_BREAKER;
  return {
    ...policy,
    kick: true,
    spread: policy.spread ?? Math.max(100, policy.baseDelay),
    breakAfter: b.breakAfter,
    breakBase: policy.maxDelay * b.breakBaseInMaxDelays,
    breakCap: policy.maxDelay * b.breakCapInMaxDelays,
  };
}

/** Sets the broker policy (the MQTT transport's); throws on a refused field. */
export function configureBroker(api: TickRetryApi, policy: PolicyFields): void {
  configure(api, "the broker policy", BROKER_POLICY, policy);
}
