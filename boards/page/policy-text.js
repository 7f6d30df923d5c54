// The two texts the policy playground copies: the policy (and budget) as C designated
// initializers for boards/app/readings.c, and as a `tickretry fleet --policy` JSON
// file. Field names and order come from the ABI (assembly/constants.json: the parameters of
// setPolicy and setBudget that are struct fields), so a new field shows up here without an
// edit. Plain functions of their arguments: the page and test/boards/page/policy-text.test.ts run the
// same code.

const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** setPolicy's or setBudget's field names, in ABI order: the struct's, without the packed flags. */
export function fieldsOf(abi, exportName) {
  return abi.exports
    .find((e) => e.name === exportName)
    .params.filter((p) => p.in !== undefined && p.name !== "flags")
    .map((p) => p.name);
}

/** An export's arguments in ABI order: each struct field from values (0 when left out), flags packed in its place. */
export function callArgs(abi, exportName, values, flags) {
  const params = abi.exports.find((e) => e.name === exportName).params.filter((p) => p.in !== undefined);
  return params.map((p) => (p.name === "flags" ? flags : (values[p.name] ?? 0)));
}

function initializer(type, name, fields, values, flags) {
  // A field the values leave out (a later ABI's) stays out: a designated initializer makes it 0.
  const given = fields.filter((f) => values[f] !== undefined);
  const lines = given.map((f) => `    .${snake(f)} = ${values[f]},`);
  return `static const ${type} ${name} = {\n${lines.join("\n")}\n    .flags = ${flags},\n};\n`;
}

/** `static const tickretry_policy UPLOAD_POLICY = {...}` and `tickretry_budget RETRY_BUDGET`. */
export function cInitializer(abi, policy, budget) {
  const policyFlags = `TICKRETRY_JITTER_${policy.jitter}${policy.idempotent ? " | TICKRETRY_POLICY_FLAG_IDEMPOTENT" : ""}`;
  const budgetFlags = budget.refundOnSuccess ? "TICKRETRY_BUDGET_FLAG_REFUND_ON_SUCCESS" : "0";
  return (
    initializer("tickretry_policy", "UPLOAD_POLICY", fieldsOf(abi, "setPolicy"), policy, policyFlags) +
    initializer("tickretry_budget", "RETRY_BUDGET", fieldsOf(abi, "setBudget"), budget, budgetFlags)
  );
}

/** A strategy file for `tickretry fleet --policy`; a budget of capacity 0 (off) is left out. */
export function fleetJson(abi, policy, budget) {
  const pick = (names, from) => Object.fromEntries(names.map((n) => [n, from[n]]));
  const strategy = {
    name: "playground",
    description: "from the device page's policy playground",
    policy: {
      ...pick(fieldsOf(abi, "setPolicy"), policy),
      jitter: policy.jitter,
      idempotent: policy.idempotent,
    },
  };
  if (budget.capacity > 0) {
    strategy.budget = {
      ...pick(fieldsOf(abi, "setBudget"), budget),
      refundOnSuccess: budget.refundOnSuccess,
    };
  }
  return `${JSON.stringify(strategy, null, 2)}\n`;
}
