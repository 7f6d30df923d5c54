// Host-side tick arithmetic: u32 ticks that wrap, compared by signed difference. The same
// three names, with the same argument order, exist in assembly/ticks.ts and
// boards/tickretry/tickretry_ticks.h; nothing else on the host compares ticks.

/**
 * The signed distance from `from` to `to`: positive while `to` is ahead, 0 or negative once reached.
 * @example
 * ```ts
 * ticksUntil(0xffff_fff0, 0x10); // 32: the wrap is no jump
 * ```
 */
export function ticksUntil(from: number, to: number): number {
  return (to - from) | 0;
}

/**
 * True when tick `t` is at or before `now`.
 * @example
 * ```ts
 * tickReached(now, api.nextAttemptAt(h)); // true once its attempt is due
 * ```
 */
export function tickReached(now: number, t: number): boolean {
  return ticksUntil(now, t) <= 0;
}

/**
 * `t` + `span`, wrapped to u32.
 * @example
 * ```ts
 * tickAfter(0xffff_fff0, 0x20); // 0x10, wrapped
 * ```
 */
export function tickAfter(t: number, span: number): number {
  return (t + span) >>> 0;
}
