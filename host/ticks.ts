// Host-side tick arithmetic: u32 ticks that wrap, compared by signed difference, as
// assembly/ticks.ts does inside the module.

/** a + span, wrapped to u32. */
export function tickAdd(a: number, span: number): number {
  return (a + span) >>> 0;
}

/** The signed distance from `from` to `to` (positive when `to` is later). */
export function tickDiff(to: number, from: number): number {
  return (to - from) | 0;
}

/** True when tick a comes before tick b. */
export function tickBefore(a: number, b: number): boolean {
  return tickDiff(a, b) < 0;
}
