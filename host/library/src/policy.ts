// setPolicy's and setBudget's fields by name, their arguments in ABI order, and setting
// them: the one place on the host that knows that order and how the flags are packed.
import { BudgetFlag, EXPORTS, FIELD_RANGES, Jitter, OPTIONAL_FIELDS, PolicyFlag } from "./generated/abi.js";
import { errorName } from "./names.js";
import type { TickRetryApi } from "./tickretry.js";

/** A jitter mode by name: "FULL", "NONE", "EQUAL" or "DECORRELATED" ({@link https://github.com/tickretry/tickretry/blob/main/docs/ABI.md | ABI.md}, Backoff and jitter). */
export type JitterName = keyof typeof Jitter;

/** setPolicy's fields, by name; spans in ticks. None has a default: the module refuses a
 * field out of range with BAD_FIELD ({@link https://github.com/tickretry/tickretry/blob/main/docs/ABI.md | ABI.md}, Policies). */
export interface PolicyFields {
  /** Attempts in all, the first one included: 1 to Limit.MAX_ATTEMPTS (255); 0 sets no limit. */
  maxAttempts: number;
  /** An attempt not reported by then fails TIMEOUT: 1 to Limit.MAX_SPAN. */
  attemptTimeout: number;
  /** The ceiling of the first retry's wait; each later ceiling doubles, up to maxDelay. */
  baseDelay: number;
  /** The cap of every wait: at least baseDelay, at most Limit.MAX_SPAN. */
  maxDelay: number;
  /** The base after a THROTTLED answer; 0 waits for the Retry-After alone. */
  throttleBaseDelay: number;
  /** Overall deadline; 0 means none. */
  deadline: number;
  /** By name ("FULL") or by value (Jitter.FULL). */
  jitter: JitterName | Jitter;
  /** Whether an AMBIGUOUS answer may be retried (with the same operation id as the key). */
  idempotent: boolean;
  /** A session: SUCCESS makes it UP instead of ending it, and a drop sends it back to retrying. Default false. */
  session?: boolean;
  /** linkUp() kicks this policy's waiting requests too. Default false. */
  kick?: boolean;
  /** begin draws the first attempt within the spread window. Default false. */
  spreadFirst?: boolean;
  /** A dropped session draws its first reconnect within the spread window. Default false. */
  spreadDrop?: boolean;
  /** Ticks a session must stay UP before its backoff level resets. Default 0. */
  stableAfter?: number;
  /** The recovery spread window, in ticks. Default 0 (no spread). */
  spread?: number;
  /** Consecutive failed attempts that open the breaker. Default 0 (no breaker). */
  breakAfter?: number;
  /** Ceiling of the first break, in ticks. Default 0. */
  breakBase?: number;
  /** Cap of every break, in ticks. Default 0. */
  breakCap?: number;
  /** The cap of a server's Retry-After, in ticks; a larger one is clamped and counted
   * (Counter.RETRY_AFTER_CLAMPED). Default 0: maxDelay, the policy's own largest wait. */
  maxRetryAfter?: number;
}

/** setBudget's fields, by name, in milli-tokens ({@link https://github.com/tickretry/tickretry/blob/main/docs/ABI.md | ABI.md}, Retry budget). No default:
 * {@link NO_BUDGET} is the budget an instance starts with, {@link AWS_STANDARD_BUDGET} a common one. */
export interface BudgetFields {
  /** The bucket's size; 0 allows no retry (AWS's quota with 0 tokens): see `off` for none. */
  capacity: number;
  /** The level it starts at (and after setBudget): at most capacity. */
  initial: number;
  /** Taken by each retry after a failure. */
  retryCost: number;
  /** Taken by each retry after a timeout. */
  timeoutRetryCost: number;
  /** A retry is denied (BUDGET) unless the level after its cost stays at or above this. */
  threshold: number;
  /** Taken by every failed attempt, retried or not. */
  failureCost: number;
  /** Given back by every first attempt (gRPC-style ratios). */
  firstAttemptDeposit: number;
  /** Given back by every success. */
  successDeposit: number;
  /** Whether a success also gives back what its own retries took. */
  refundOnSuccess: boolean;
  /** No budget: every retry allowed; every other field must then be 0 or false. Default false. */
  off?: boolean;
}

/** The AWS SDK standard mode of {@link https://github.com/tickretry/tickretry/blob/main/docs/ABI.md | ABI.md}: 500 tokens, a retry costs 5, a timeout retry 10, a success refunds. */
export const AWS_STANDARD_BUDGET: BudgetFields = {
  capacity: 500_000,
  initial: 500_000,
  retryCost: 5000,
  timeoutRetryCost: 10_000,
  threshold: 0,
  failureCost: 0,
  firstAttemptDeposit: 0,
  successDeposit: 1000,
  refundOnSuccess: true,
};

/** No budget (flag OFF): what init sets. */
export const NO_BUDGET: BudgetFields = {
  capacity: 0,
  initial: 0,
  retryCost: 0,
  timeoutRetryCost: 0,
  threshold: 0,
  failureCost: 0,
  firstAttemptDeposit: 0,
  successDeposit: 0,
  refundOnSuccess: false,
  off: true,
};

/** setPolicy's arguments after the id, in ABI order. */
export type PolicyArgs =
  Parameters<TickRetryApi["setPolicy"]> extends [unknown, ...infer R] ? Required<R> : never;
/** setBudget's arguments, in ABI order. */
export type BudgetArgs = Parameters<TickRetryApi["setBudget"]>;

// The order comes from the export's parameter list, so a field added to constants.json
// needs no edit here; the flags are packed from their booleans.
const POLICY_PARAMS = EXPORTS.setPolicy.params.slice(1);
const BUDGET_PARAMS = EXPORTS.setBudget.params;
const inOrder = (names: readonly string[], values: Record<string, unknown>) =>
  names.map((name) => (values[name] as number | undefined) ?? 0);

/**
 * setPolicy's arguments after the id: `api.setPolicy(id, ...policyArgs(p))`. The optional
 * fields default to 0.
 * @example
 * ```ts
 * api.setPolicy(0, ...policyArgs({ maxAttempts: 5, attemptTimeout: 2000, baseDelay: 100, maxDelay: 3000, throttleBaseDelay: 1000, deadline: 0, jitter: "FULL", idempotent: true }));
 * ```
 */
export function policyArgs(p: PolicyFields): PolicyArgs {
  const jitter = typeof p.jitter === "number" ? p.jitter : Jitter[p.jitter];
  const flags =
    jitter |
    (p.idempotent ? PolicyFlag.IDEMPOTENT : 0) |
    (p.session ? PolicyFlag.SESSION : 0) |
    (p.kick ? PolicyFlag.KICK : 0) |
    (p.spreadFirst ? PolicyFlag.SPREAD_FIRST : 0) |
    (p.spreadDrop ? PolicyFlag.SPREAD_DROP : 0);
  return inOrder(POLICY_PARAMS, { ...p, flags }) as PolicyArgs;
}

/**
 * setBudget's arguments: `api.setBudget(...budgetArgs(b))`.
 * @example
 * ```ts
 * api.setBudget(...budgetArgs(AWS_STANDARD_BUDGET)); // 0 (OK)
 * ```
 */
export function budgetArgs(b: BudgetFields): BudgetArgs {
  const flags = (b.refundOnSuccess ? BudgetFlag.REFUND_ON_SUCCESS : 0) | (b.off ? BudgetFlag.OFF : 0);
  return inOrder(BUDGET_PARAMS, { ...b, flags }) as BudgetArgs;
}

/** The first field of `fields` outside its range (FIELD_RANGES, from constants.json), as
 * "NAME is VALUE; allowed: MIN to MAX", or undefined when every field is in range. */
function rangeProblem(
  fields: Record<string, unknown>,
  ranges: Record<string, readonly [number, number | string]>,
) {
  for (const [name, [min, max]] of Object.entries(ranges)) {
    // An optional field left out is 0 (policyArgs), within every range that has one.
    const value = fields[name] ?? (OPTIONAL_FIELDS.includes(name) ? 0 : undefined);
    const limit = typeof max === "number" ? max : (fields[max] as number);
    const allowed = typeof max === "number" ? `${min} to ${max}` : `${min} to ${max} (${limit})`;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > limit) {
      return `${name} is ${JSON.stringify(value)}; allowed: ${allowed}`;
    }
  }
  return undefined;
}

/**
 * What the module would refuse in `p`, named: the field, its value and its allowed range
 * ("maxAttempts is 256; allowed: 0 to 255"), or undefined when setPolicy will take it.
 * @example
 * ```ts
 * policyProblem({ maxAttempts: 256, attemptTimeout: 2000, baseDelay: 100, maxDelay: 3000, throttleBaseDelay: 0, deadline: 0, jitter: "FULL", idempotent: true }); // "maxAttempts is 256; allowed: 0 to 255"
 * ```
 */
export function policyProblem(p: PolicyFields): string | undefined {
  const problem = rangeProblem(p as unknown as Record<string, unknown>, FIELD_RANGES.setPolicy);
  if (problem !== undefined) return problem;
  if (
    typeof p.jitter === "number" ? !Object.values(Jitter).includes(p.jitter as Jitter) : !(p.jitter in Jitter)
  ) {
    return `jitter is ${JSON.stringify(p.jitter)}; allowed: ${Object.keys(Jitter).join(", ")}`;
  }
  return undefined;
}

/**
 * The same for setBudget's fields ("initial is 9; allowed: 0 to capacity (5)"), and the
 * combination the module refuses: `off` with any other field set.
 * @example
 * ```ts
 * budgetProblem({ ...NO_BUDGET, capacity: 5, initial: 9 }); // "initial is 9; allowed: 0 to capacity (5)"
 * ```
 */
export function budgetProblem(b: BudgetFields): string | undefined {
  const problem = rangeProblem(b as unknown as Record<string, unknown>, FIELD_RANGES.setBudget);
  if (problem !== undefined || !b.off) return problem;
  const set: string[] = BUDGET_PARAMS.filter(
    (name) => name !== "flags" && b[name as keyof BudgetFields] !== 0,
  );
  if (b.refundOnSuccess) set.push("refundOnSuccess");
  if (set.length === 0) return undefined;
  return `off (no budget) with ${set.join(", ")} set; allowed: off with every other field 0, or a budget without off`;
}

/**
 * Sets policy `id` and, when given, the budget, on an initialised instance; a refusal
 * throws, naming `what` and the module's error (configurations are code, not user input,
 * or were checked before). A field out of range is named first, with its value and range
 * ({@link policyProblem}), before the module is asked. `budget` defaults to none: the
 * instance's budget is left as it is.
 * @example
 * ```ts
 * configure(api, "the upload policy", 0, { maxAttempts: 5, attemptTimeout: 2000, baseDelay: 100, maxDelay: 3000, throttleBaseDelay: 1000, deadline: 20000, jitter: "FULL", idempotent: true });
 * ```
 */
export function configure(
  api: TickRetryApi,
  what: string,
  id: number,
  policy: PolicyFields,
  budget?: BudgetFields,
): void {
  const problem = policyProblem(policy) ?? (budget && budgetProblem(budget));
  if (problem) throw new Error(`${what}: ${problem}`);
  const set = api.setPolicy(id, ...policyArgs(policy));
  if (set < 0) throw new Error(`${what}: setPolicy refused it: ${errorName(set)}`);
  if (budget === undefined) return;
  const b = api.setBudget(...budgetArgs(budget));
  if (b < 0) throw new Error(`${what}: setBudget refused it: ${errorName(b)}`);
}
