// How many random cases a property tries: a default that keeps `npm test` quick, or
// PROPERTY_RUNS from the environment to dig deeper (with vitest's --testTimeout raised).

export function runs(byDefault: number): { numRuns: number } {
  return { numRuns: Number(process.env.PROPERTY_RUNS ?? byDefault) };
}
