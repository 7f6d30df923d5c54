// policyProblem and budgetProblem name what the module would refuse (the field, its value
// and its range, from constants.json) before it is asked; configure throws that message.
// Each rule is checked against the module itself: what they pass, setPolicy takes.
import { expect, test } from "vitest";
import {
  AWS_STANDARD_BUDGET,
  budgetArgs,
  budgetProblem,
  configure,
  create,
  policyArgs,
  policyProblem,
  type PolicyFields,
} from "tickretry";

const good: PolicyFields = {
  maxAttempts: 5,
  attemptTimeout: 1000,
  baseDelay: 100,
  maxDelay: 1000,
  throttleBaseDelay: 0,
  deadline: 0,
  jitter: "FULL",
  idempotent: false,
};

test.each([
  // 0 is no limit (ABI v3, for sessions that retry for ever at the cap)
  [{ maxAttempts: -1 }, "maxAttempts is -1; allowed: 0 to 255"],
  [{ maxAttempts: 256 }, "maxAttempts is 256; allowed: 0 to 255"],
  [{ attemptTimeout: 0 }, "attemptTimeout is 0; allowed: 1 to 2147483647"],
  [{ baseDelay: 1001 }, "baseDelay is 1001; allowed: 0 to maxDelay (1000)"],
  [{ deadline: 2 ** 31 }, "deadline is 2147483648; allowed: 0 to 2147483647"],
  [{ throttleBaseDelay: -1 }, "throttleBaseDelay is -1; allowed: 0 to 2147483647"],
  [{ jitter: "SOMETIMES" }, 'jitter is "SOMETIMES"; allowed: FULL, NONE, EQUAL, DECORRELATED'],
])("a policy with %j: %s, and the module refuses it too", (change, message) => {
  const p = { ...good, ...change } as PolicyFields;
  expect(policyProblem(p)).toBe(message);
  const api = create();
  expect(() => configure(api, "upload", 0, p)).toThrow(`upload: ${message}`);
  // An unknown jitter name has no number to pass; every other refusal is the module's too.
  if (!("jitter" in change)) expect(api.setPolicy(0, ...policyArgs(p))).toBeLessThan(0);
});

test("what the checks pass, the module takes: the edges of every range", () => {
  const api = create();
  for (const p of [good, { ...good, maxAttempts: 1 }, { ...good, maxAttempts: 255, baseDelay: 1000 }]) {
    expect(policyProblem(p)).toBeUndefined();
    expect(api.setPolicy(0, ...policyArgs(p))).toBe(0);
  }
  const b = { ...AWS_STANDARD_BUDGET, initial: AWS_STANDARD_BUDGET.capacity, threshold: 0 };
  expect(budgetProblem(b)).toBeUndefined();
  expect(api.setBudget(...budgetArgs(b))).toBe(0);
  const over = { ...b, threshold: b.capacity + 1 };
  expect(budgetProblem(over)).toBe(`threshold is ${b.capacity + 1}; allowed: 0 to capacity (${b.capacity})`);
  expect(api.setBudget(...budgetArgs(over))).toBeLessThan(0);
});
