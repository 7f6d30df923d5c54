// The page's "Apply to the device" of a policy draft, carried out by the pass (asks.ts):
// the draft's fields checked as the module would check them, set on the module's upload
// policy, and kept (the next state write stores the image and the policy). A field the
// form leaves out (kick, spread, the MQTT breaker, maxRetryAfter) stays the device's.
import { Jitter, policyArgs, policyProblem, type PolicyFields, type TickRetryApi } from "tickretry";
import { UPLOAD_POLICY } from "../policies.js";
import type { Kept } from "./kept.js";

/** The form's numeric fields: the ones the page's Policy view edits. */
const NUMBERS = [
  "maxAttempts",
  "attemptTimeout",
  "baseDelay",
  "maxDelay",
  "throttleBaseDelay",
  "deadline",
] as const;

/** The draft on `form` over `current`, or the first field that is wrong, in words. */
export function draftPolicy(form: URLSearchParams, current: PolicyFields): PolicyFields | string {
  const draft: PolicyFields = { ...current };
  for (const name of NUMBERS) {
    const text = form.get(name) ?? "";
    if (!/^[0-9]{1,10}$/.test(text) || Number(text) > 0xffffffff) {
      return `${name} is "${text}"; a whole number of 0 or more, in plain decimal digits`;
    }
    draft[name] = Number(text);
  }
  const jitter = form.get("jitter") ?? "";
  if (!(jitter in Jitter)) return `jitter is "${jitter}"; allowed: ${Object.keys(Jitter).join(", ")}`;
  draft.jitter = jitter as keyof typeof Jitter;
  draft.idempotent = form.get("idempotent") === "on";
  return policyProblem(draft) ?? draft;
}

/** Sets the draft on the module and keeps it; the refusal in words, or undefined when applied. */
export function applyPolicy(api: TickRetryApi, kept: Kept, form: URLSearchParams): string | undefined {
  const draft = draftPolicy(form, kept.policy);
  if (typeof draft === "string") return draft;
  const set = api.setPolicy(UPLOAD_POLICY, ...policyArgs(draft));
  if (set < 0) return `the module refused it (${set})`;
  kept.policy = draft;
  kept.markChanged();
  return undefined;
}
