// Retry strategies as nothing but tickretry policies and budget settings: the four of the
// experiment (A to D) and any read from a JSON file. A strategy is applied to a module
// instance through setPolicy/setBudget, and the module itself validates it.
import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import {
  Jitter,
  budgetArgs,
  configure,
  policyArgs,
  type BudgetArgs,
  type BudgetFields,
  type JitterName,
  type PolicyArgs,
  type PolicyFields,
  type TickRetryApi,
} from "tickretry";

/** A policy as strategies and policy files give it: the jitter mode by name. */
export interface PolicySpec extends PolicyFields {
  jitter: JitterName;
}

/** What a device does at boot after a power cut with the uploads pending when power
 * went: restore the image it saved (RESTORE_ATTEMPTS_LOST; elapsed the time since the
 * save, as a clock that ran through the cut tells, or 0 for a device without one), or
 * begin every one of them afresh as a new operation. */
export type BootMode = "restore" | "restore-no-clock" | "afresh";

const BOOT_DESCRIPTION: Record<BootMode, string> = {
  restore: "restores its saved image at boot",
  "restore-no-clock": "restores its saved image at boot with elapsed 0",
  afresh: "begins its pending uploads afresh at boot",
};

export interface Strategy {
  name: string;
  description: string;
  policy: PolicySpec;
  /** Left out: the budget stays off (capacity 0 after init). */
  budget?: BudgetFields;
  /** Only with FleetSettings.powerCut; left out: restore. */
  boot?: BootMode;
}

/** A strategy with the given boot mode, named for it ("C/restore"). */
export function withBoot(s: Strategy, boot: BootMode): Strategy {
  return {
    ...s,
    name: `${s.name}/${boot}`,
    description: `${s.description}; ${BOOT_DESCRIPTION[boot]}`,
    boot,
  };
}

/** What every strategy of the experiment shares: 4 attempts, 2 s per attempt, 5 s overall,
 * 503 (TRANSIENT) and timeouts retryable, which for timeouts takes an idempotent policy. */
export const EXPERIMENT_POLICY: PolicySpec = {
  maxAttempts: 4,
  attemptTimeout: 2000,
  baseDelay: 200,
  maxDelay: 2000,
  throttleBaseDelay: 0,
  deadline: 5000,
  jitter: "FULL",
  idempotent: true,
};

/** The SRE / Finagle ratio (docs/ABI.md's row) starting empty: each first attempt
 * deposits 0.1 token and a retry costs 1, so on every device, at every moment, retries
 * stay within 10% of the first attempts sent since boot. Starting full instead (the ABI
 * row's initial 10 tokens) would allow 10 retries per device before the ratio bites;
 * docs/fleet.md shows what that does to the experiment. */
export const TEN_PERCENT_BUDGET: BudgetFields = {
  capacity: 10_000,
  initial: 0,
  retryCost: 1000,
  timeoutRetryCost: 1000,
  threshold: 0,
  failureCost: 0,
  firstAttemptDeposit: 100,
  successDeposit: 0,
  refundOnSuccess: false,
};

export const STRATEGIES: Record<string, Strategy> = {
  A: {
    name: "A",
    description: "immediate retry",
    policy: { ...EXPERIMENT_POLICY, baseDelay: 0, jitter: "NONE" },
  },
  B: {
    name: "B",
    description: "exponential backoff 200/400/800 ms",
    policy: { ...EXPERIMENT_POLICY, jitter: "NONE" },
  },
  C: {
    name: "C",
    description: "exponential backoff, full jitter",
    policy: { ...EXPERIMENT_POLICY, jitter: "FULL" },
  },
  D: {
    name: "D",
    description: "full jitter + 10% retry budget",
    policy: { ...EXPERIMENT_POLICY, jitter: "FULL" },
    budget: TEN_PERCENT_BUDGET,
  },
  S: {
    name: "S-spread",
    description: "full jitter, first attempts and restores spread over 3 s",
    policy: { ...EXPERIMENT_POLICY, jitter: "FULL", spread: 3000, spreadFirst: true },
  },
};

/** The policy slot every strategy uses on every device. */
export const POLICY_ID = 0;

/** Each strategy's setPolicy and setBudget arguments, built once it was accepted. */
const accepted = new WeakMap<AppliedStrategy, { policy: PolicyArgs; budget?: BudgetArgs }>();

/** What applyStrategy reads of a strategy (the broker restart's sessions have no more). */
export type AppliedStrategy = Pick<Strategy, "name" | "policy" | "budget">;

/** Configures an initialised instance; throws with the module's error name when it refuses.
 * A fleet configures every device alike: the strategy is checked on the first one only (a
 * million checks were 3% of a run), and the module's answers are the same on every one. */
export function applyStrategy(api: TickRetryApi, s: AppliedStrategy): void {
  const args = accepted.get(s);
  if (args === undefined) {
    configure(api, `strategy ${s.name}`, POLICY_ID, s.policy, s.budget);
    accepted.set(s, { policy: policyArgs(s.policy), budget: s.budget && budgetArgs(s.budget) });
  } else if (
    api.setPolicy(POLICY_ID, ...args.policy) < 0 ||
    (args.budget && api.setBudget(...args.budget) < 0)
  ) {
    throw new Error(`strategy ${s.name}: refused on a device after the first accepted it`);
  }
}

function fields<T extends object>(what: string, defaults: T, given: unknown): T {
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new Error(`${what} must be an object`);
  }
  const out = { ...defaults } as Record<string, unknown>;
  for (const [key, value] of Object.entries(given)) {
    if (!(key in defaults)) throw new Error(`${what}: unknown field "${key}"`);
    const want = typeof out[key];
    if (typeof value !== want) throw new Error(`${what}.${key} must be a ${want}`);
    // The ABI takes u32: a larger number would reach the module truncated, past its checks.
    if (
      want === "number" &&
      !(Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffff_ffff)
    ) {
      throw new Error(`${what}.${key} must be an integer from 0 to 4294967295`);
    }
    out[key] = value;
  }
  return out as T;
}

/** A strategy from JSON text: { name?, description?, policy: {...}, budget?: {...} }.
 * Policy fields left out take the experiment's (EXPERIMENT_POLICY); a budget, when given,
 * starts from TEN_PERCENT_BUDGET. The module checks the ranges when it is applied. */
function parseStrategy(text: string, fallbackName: string): Strategy {
  const json: unknown = JSON.parse(text);
  const top = fields("strategy", { name: fallbackName, description: "", policy: {}, budget: {} }, json);
  const given = json as { budget?: unknown };
  const policy = fields(`${top.name}.policy`, EXPERIMENT_POLICY, top.policy);
  if (!(policy.jitter in Jitter)) {
    throw new Error(`${top.name}.policy.jitter must be one of ${Object.keys(Jitter).join(", ")}`);
  }
  return {
    name: top.name,
    description: top.description || `policy file ${fallbackName}`,
    policy,
    ...(given.budget !== undefined && {
      budget: fields(`${top.name}.budget`, TEN_PERCENT_BUDGET, top.budget),
    }),
  };
}

/** Reads `--policy file.json`; the strategy is named after the file unless it names itself. */
export function loadStrategy(path: string): Strategy {
  return parseStrategy(readFileSync(path, "utf8"), basename(path, extname(path)));
}
