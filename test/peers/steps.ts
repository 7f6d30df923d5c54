// The AWS SDKs' standard-mode test tables (aws-sdk-go-v2's TestRetry2026StandardMode,
// smithy-rs's v2.1 cases) are lists of responses, each with what the retryer decided, the
// quota left and the delay. This drives one policy through such a list: one operation
// until it ends, then the next, and says after each response what the module decided.
import { State } from "../../host/library/src/generated/abi.js";
import { endReasonName } from "../../host/library/src/names.js";
import type { TickRetryApi } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";

/** One response: the attempt's outcome and the server's delay in ticks (0: none). */
export type Response = [outcome: number, retryAfter?: number];

/** What followed a response: "retry" with the quota units left and the wait, or the end
 * reason's name (SUCCEEDED, EXHAUSTED, BUDGET, PERMANENT) with the quota units left. */
export type Decision = ["retry", number, number] | [string, number];

/** Meets each response with the current attempt of policy 0 (beginning an operation when
 * none is live) and returns the decisions. */
export function decide(api: TickRetryApi, responses: readonly Response[]): Decision[] {
  const decisions: Decision[] = [];
  let now = 0;
  let h = -1;
  for (const [outcome, retryAfter = 0] of responses) {
    if (h < 0) h = api.begin(0, now);
    if (api.poll(now) !== h) throw new Error(`attempt ${api.attempt(h) + 1} did not start at ${now}`);
    api.report(h, api.attempt(h), outcome, retryAfter, now);
    const quota = api.tokens() / 1000;
    if (api.state(h) === State.WAITING) {
      decisions.push(["retry", quota, ticksUntil(now, api.nextAttemptAt(h))]);
      now = api.nextAttemptAt(h);
    } else {
      decisions.push([endReasonName(api.endReason(h)), quota]);
      api.release(h);
      h = -1;
    }
  }
  return decisions;
}
