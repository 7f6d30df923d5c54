// The device's retry policy and budget: what the firmware would set at boot. Spans are
// ms at scale 1; tests scale them down so a whole retry story takes a second or two.
import {
  AWS_STANDARD_BUDGET,
  configure,
  NO_BUDGET,
  type BudgetFields,
  type PolicyFields,
  type TickRetryApi,
} from "tickretry";

/** Policy slot of the periodic sensor upload. */
export const UPLOAD_POLICY = 0;

/**
 * 5 attempts, 2 s per attempt, backoff 500 ms doubling to 8 s (1 s after a throttle),
 * full jitter, 30 s overall, idempotent (the upload carries an Idempotency-Key).
 */
export const UPLOAD: PolicyFields = {
  maxAttempts: 5,
  attemptTimeout: 2000,
  baseDelay: 500,
  maxDelay: 8000,
  throttleBaseDelay: 1000,
  deadline: 30_000,
  jitter: "FULL",
  idempotent: true,
};

export type BudgetName = "aws" | "off";

/** The budget presets: AWS SDK standard mode (500 tokens, retry 5, timeout retry 10), or none. */
const BUDGETS: Record<BudgetName, BudgetFields> = { aws: AWS_STANDARD_BUDGET, off: NO_BUDGET };

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
  };
}

/** Sets the upload policy and the budget; throws on a refused field (a bug here, not input). */
export function configureUpload(api: TickRetryApi, policy: PolicyFields, budget: BudgetName): void {
  configure(api, `the upload policy with the ${budget} budget`, UPLOAD_POLICY, policy, BUDGETS[budget]);
}

/**
 * How long a broker session that ended (the broker refused the login: CONNACK 4 or 5) stays
 * ended before a new one begins, ms; new broker settings begin one at once. An hour keeps a
 * board with a wrong password from knocking every few seconds, and a fixed broker in use
 * within the hour.
 */
export const BROKER_REFUSED_HOLD_MS = 3_600_000;

/** Policy slot of the broker connection (the MQTT transport's session). */
export const BROKER_POLICY = 1;

/**
 * The broker connection, a session: the upload's spans (connect attempts of 2 s, backoff
 * 500 ms doubling to 8 s with full jitter), retried at the cap for as long as the broker
 * stays away (maxAttempts 0, no deadline); the backoff level resets once the connection has
 * stayed up 10 s; a restore (boot, wake) or a kick spreads its next try over 1 s.
 */
export const BROKER: PolicyFields = {
  ...UPLOAD,
  maxAttempts: 0,
  deadline: 0,
  session: true,
  stableAfter: 10_000,
  spread: 1000,
};

/**
 * The upload policy over MQTT: the same, kicked by linkUp when the broker session comes up
 * (an upload that waited out the outage resumes within a spread of its base delay, at least
 * 100 ms, rather than at the end of its backoff), and with a breaker: after 2 failed
 * attempts in a row (a broker gone away fails every publish at once) no upload attempt
 * starts until a probe gets through, so uploads begun before the drop wait instead of
 * spending their attempts; linkUp ends the break.
 */
export function mqttUpload(policy: PolicyFields): PolicyFields {
  const spread = Math.max(100, policy.baseDelay);
  return {
    ...policy,
    kick: true,
    spread,
    breakAfter: 2,
    breakBase: policy.maxDelay,
    breakCap: 4 * policy.maxDelay,
  };
}

/** Sets the broker policy (the MQTT transport's); throws on a refused field. */
export function configureBroker(api: TickRetryApi, policy: PolicyFields): void {
  configure(api, "the broker policy", BROKER_POLICY, policy);
}
