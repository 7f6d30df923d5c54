// Everything a host can observe of a module instance, for "changes nothing" checks.
import { Counter } from "../../host/abi.js";
import type { TickRetryApi } from "../../host/tickretry.js";

/** Linear memory, counters, tokens and every query of the given handles. */
export function observe(api: TickRetryApi, handles: number[]): unknown {
  const memory = Array.from(new Uint8Array(api.memory.buffer, 0, 4096));
  const counters = Array.from({ length: Counter.COUNT }, (_, i) => api.counter(i));
  const ops = handles.map((h) => [
    api.state(h),
    api.attempt(h),
    api.endReason(h),
    api.lastOutcome(h),
    api.operationId(h),
    api.opFlags(h),
    api.nextAttemptAt(h),
    api.attemptDeadline(h),
    api.deadline(h),
  ]);
  return { memory, counters, tokens: api.tokens(), ops };
}
