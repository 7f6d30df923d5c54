// The playground's copy buttons (boards/page/policy-text.js, the same file the page runs):
// the C initializer compiled with gcc against tickretry.h, and the fleet JSON read by
// `tickretry fleet --policy`'s own loader, both come back as the policy they were made
// from; docs/device.md shows the texts of the playground's default policy.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadStrategy } from "../../../host/tools/src/fleet/strategies.js";
import { budgetArgs, NO_BUDGET, policyArgs, type BudgetFields } from "../../../host/library/src/policy.js";
import type { PolicySpec } from "../../../host/tools/src/fleet/strategies.js";
// @ts-expect-error: plain JavaScript served to the browser, without type declarations
import { cInitializer, fleetJson } from "../../../boards/page/policy-text.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const ABI = JSON.parse(readFileSync(`${ROOT}assembly/constants.json`, "utf8"));
const dir = mkdtempSync(join(tmpdir(), "tickretry-policy-"));

/** The playground's default policy and budget (boards/page/index.html's values). */
const PLAYGROUND_DEFAULT: { policy: PolicySpec; budget: BudgetFields } = {
  policy: {
    maxAttempts: 6,
    attemptTimeout: 3000,
    baseDelay: 1000,
    maxDelay: 16000,
    throttleBaseDelay: 1000,
    deadline: 0,
    jitter: "FULL",
    idempotent: true,
  },
  budget: NO_BUDGET,
};

const CASES: { policy: PolicySpec; budget: BudgetFields }[] = [
  PLAYGROUND_DEFAULT,
  {
    policy: {
      maxAttempts: 255,
      attemptTimeout: 2147483647,
      baseDelay: 7,
      maxDelay: 123456,
      throttleBaseDelay: 0,
      deadline: 99,
      jitter: "DECORRELATED",
      idempotent: false,
    },
    budget: {
      capacity: 500000,
      initial: 400000,
      retryCost: 5000,
      timeoutRetryCost: 10000,
      threshold: 1,
      failureCost: 2,
      firstAttemptDeposit: 3,
      successDeposit: 1000,
      refundOnSuccess: true,
    },
  },
];

/** Compiles the C text against tickretry.h and prints both structs' fields in order. */
function compiledC(text: string): number[] {
  const source = join(dir, "policy.c");
  writeFileSync(
    source,
    `#include <stdio.h>\n#include "tickretry.h"\n${text}\nint main(void) {\n` +
      `  const uint32_t *p = (const uint32_t *)&UPLOAD_POLICY, *b = (const uint32_t *)&RETRY_BUDGET;\n` +
      `  for (size_t i = 0; i < sizeof UPLOAD_POLICY / 4; i++) printf("%u ", p[i]);\n` +
      `  for (size_t i = 0; i < sizeof RETRY_BUDGET / 4; i++) printf("%u ", b[i]);\n  return 0;\n}\n`,
  );
  const exe = join(dir, "policy");
  execFileSync("gcc", ["-Wall", "-Wextra", "-Werror", `-I${ROOT}boards/tickretry`, source, "-o", exe]);
  return execFileSync(exe, { encoding: "utf8" }).trim().split(" ").map(Number);
}

describe("the copy buttons' texts", () => {
  it.each(CASES)("the C initializer compiles to the same policy and budget (%#)", ({ policy, budget }) => {
    expect(compiledC(cInitializer(ABI, policy, budget))).toEqual([
      ...policyArgs(policy),
      ...budgetArgs(budget),
    ]);
  });

  it.each(CASES)("the fleet JSON loads as the same policy and budget (%#)", ({ policy, budget }) => {
    const file = join(dir, "playground.json");
    writeFileSync(file, fleetJson(ABI, policy, budget));
    const strategy = loadStrategy(file);
    expect(strategy.policy).toEqual(policy);
    expect(strategy.budget).toEqual(budget.capacity > 0 ? budget : undefined);
  });

  it("docs/device.md shows the texts of the playground's default policy", () => {
    const doc = readFileSync(`${ROOT}docs/device.md`, "utf8");
    const { policy, budget } = PLAYGROUND_DEFAULT;
    expect(doc).toContain("```c\n" + cInitializer(ABI, policy, budget) + "```");
    expect(doc).toContain("```json\n" + fleetJson(ABI, policy, budget) + "```");
  });
});
