// Host-side tick arithmetic: u32 ticks that wrap, compared by signed difference. The same
// three names, with the same argument order, exist in assembly/ticks.ts and
// boards/tickretry/tickretry_ticks.h; nothing else on the host compares ticks.

/** The signed distance from `from` to `to`: positive while `to` is ahead, 0 or negative once reached. */
export function ticksUntil(from: number, to: number): number {
  return (to - from) | 0;
}

/** True when tick `t` is at or before `now`. */
export function tickReached(now: number, t: number): boolean {
  return ticksUntil(now, t) <= 0;
}

/** `t` + `span`, wrapped to u32. */
export function tickAfter(t: number, span: number): number {
  return (t + span) >>> 0;
}
