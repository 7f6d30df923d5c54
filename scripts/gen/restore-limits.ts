// The largest value restore accepts for each image field (docs/ABI.md, restore, item 8),
// written from the constants, so that the list follows a new flag, state or limit instead of
// falling behind it (it once capped opFlags at 63 after HELD made it 127).
type Group = Record<string, number>;

/** The constant groups the limits come from (assembly/constants.json). */
export interface LimitGroups {
  limit: Group;
  policyFlag: Group;
  budgetFlag: Group;
  opFlag: Group;
  breaker: Group;
  state: Group;
  outcome: Group;
  endReason: Group;
}

// The one limit that is no constant: a handle's generation is stored in 16 bits (image.ts,
// U16), counting 1 to 65535 (operations.ts, begin).
const GENERATIONS = "65535 (16 bits)";

const bits = (g: Group) => Object.values(g).reduce((a, b) => a | b, 0);
const last = (g: Group) => Object.entries(g).reduce((a, b) => (b[1] > a[1] ? b : a));
/** `NAME` of a group's largest value, with the value when the name does not say it. */
const lastName = (g: Group) => `${last(g)[0]} (${last(g)[1]})`;
const named = (name: string, value: number) => `\`${name}\` (${value})`;
const allBits = (g: Group) =>
  `${bits(g)} (${Object.keys(g)
    .map((k) => `\`${k}\``)
    .join(" | ")})`;

/** One line per record: its fields and their largest values. */
export function restoreLimits(c: LimitGroups): string[] {
  const { limit } = c;
  const span = named("MAX_SPAN", limit.MAX_SPAN);
  const count = named("MAX_ATTEMPTS", limit.MAX_ATTEMPTS);
  return [
    `- \`clockAhead\`: ${named("BACKSTEP_TOLERANCE", limit.BACKSTEP_TOLERANCE)}; \`nextOperationId\`: ${span};`,
    `- the eight budget numbers: ${span}; the budget's flags: ${allBits(c.budgetFlag)};`,
    `- a policy's \`isSet\`: 1; \`maxAttempts\`: ${count}; \`flags\`: ${allBits(c.policyFlag)};` +
      ` the ten spans: ${span}; \`breakAfter\`, \`breakerFailures\`, \`breakerOpens\`: ${count};` +
      ` \`breakerState\`: one of ${Object.entries(c.breaker)
        .map(([k, v]) => `${k} (${v})`)
        .join(", ")};`,
    `- a slot's \`generation\`: ${GENERATIONS}; \`state\`: ${lastName(c.state)};` +
      ` \`policy\`: POLICIES - 1 (${limit.POLICIES - 1}); \`attempt\`, \`operationId\`, \`previousWait\`,` +
      ` \`lastRetryCost\`: ${span}; \`lastOutcome\`: ${lastName(c.outcome)}; \`endReason\`:` +
      ` ${lastName(c.endReason)}; \`opFlags\`: ${allBits(c.opFlag)}; \`level\`: ${count};`,
    `- (the PRNG words, the counters and the four ticks may be any u32);`,
  ];
}
