// setPolicy's and setBudget's fields by name, their arguments in ABI order, and setting
// them: the one place on the host that knows that order and how the flags are packed.
import { BudgetFlag, Jitter, PolicyFlag } from "./generated/abi.js";
import { errorName } from "./names.js";
import type { TickRetryApi } from "./tickretry.js";

export type JitterName = keyof typeof Jitter;

/** setPolicy's fields, by name; spans in ticks. */
export interface PolicyFields {
  maxAttempts: number;
  attemptTimeout: number;
  baseDelay: number;
  maxDelay: number;
  throttleBaseDelay: number;
  /** Overall deadline; 0 means none. */
  deadline: number;
  /** By name ("FULL") or by value (Jitter.FULL). */
  jitter: JitterName | Jitter;
  idempotent: boolean;
  /** Sessions (ABI v3; each 0 or false when left out): operations of this policy supervise a connection. */
  session?: boolean;
  /** linkUp() kicks this policy's waiting requests too. */
  kick?: boolean;
  /** begin draws the first attempt within the spread window. */
  spreadFirst?: boolean;
  /** Ticks a session must stay UP before its backoff level resets. */
  stableAfter?: number;
  /** The recovery spread window. */
  spread?: number;
  /** Consecutive failed attempts that open the circuit breaker; 0: none. */
  breakAfter?: number;
  breakBase?: number;
  breakCap?: number;
}

/** setBudget's fields, by name, in milli-tokens. */
export interface BudgetFields {
  capacity: number;
  initial: number;
  retryCost: number;
  timeoutRetryCost: number;
  threshold: number;
  failureCost: number;
  firstAttemptDeposit: number;
  successDeposit: number;
  refundOnSuccess: boolean;
}

/** docs/ABI.md's AWS SDK standard mode: 500 tokens, a retry costs 5, a timeout retry 10, a success refunds. */
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

/** No budget: capacity 0 turns it off. */
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
};

type Twelve = [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];
type Nine = [number, number, number, number, number, number, number, number, number];

/** setPolicy's arguments after the id: `api.setPolicy(id, ...policyArgs(p))`. */
export function policyArgs(p: PolicyFields): Twelve {
  const jitter = typeof p.jitter === "number" ? p.jitter : Jitter[p.jitter];
  const flags =
    jitter |
    (p.idempotent ? PolicyFlag.IDEMPOTENT : 0) |
    (p.session ? PolicyFlag.SESSION : 0) |
    (p.kick ? PolicyFlag.KICK : 0) |
    (p.spreadFirst ? PolicyFlag.SPREAD_FIRST : 0);
  const { stableAfter = 0, spread = 0, breakAfter = 0, breakBase = 0, breakCap = 0 } = p;
  return [
    p.maxAttempts,
    p.attemptTimeout,
    p.baseDelay,
    p.maxDelay,
    p.throttleBaseDelay,
    p.deadline,
    flags,
    stableAfter,
    spread,
    breakAfter,
    breakBase,
    breakCap,
  ];
}

/** setBudget's arguments: `api.setBudget(...budgetArgs(b))`. */
export function budgetArgs(b: BudgetFields): Nine {
  const flags = b.refundOnSuccess ? BudgetFlag.REFUND_ON_SUCCESS : 0;
  return [
    b.capacity,
    b.initial,
    b.retryCost,
    b.timeoutRetryCost,
    b.threshold,
    b.failureCost,
    b.firstAttemptDeposit,
    b.successDeposit,
    flags,
  ];
}

/**
 * Sets policy `id` and, when given, the budget, on an initialised instance; a refusal
 * throws, naming `what` and the module's error (configurations are code, not user input,
 * or were checked before).
 */
export function configure(
  api: TickRetryApi,
  what: string,
  id: number,
  policy: PolicyFields,
  budget?: BudgetFields,
): void {
  const set = api.setPolicy(id, ...policyArgs(policy));
  if (set < 0) throw new Error(`${what}: setPolicy refused it: ${errorName(set)}`);
  if (budget === undefined) return;
  const b = api.setBudget(...budgetArgs(budget));
  if (b < 0) throw new Error(`${what}: setBudget refused it: ${errorName(b)}`);
}
