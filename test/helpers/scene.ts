// A module instance holding a bit of everything an image must carry: two policies (one
// with a deadline, one not idempotent), a budget, operations waiting, in flight, due,
// ended and handed out, ended and not, and a slot released and begun again.
import { Outcome } from "../../host/library/src/generated/abi.js";
import { budgetArgs } from "../../host/library/src/policy.js";
import { create, type TickRetryApi } from "../../host/library/src/tickretry.js";
import { tickAfter } from "../../host/library/src/ticks.js";
import { setPolicy } from "./policies.js";

export interface BusyScene {
  api: TickRetryApi;
  handles: number[];
  now: number;
}

/** The scene at tick `start` (any u32, also just before the wrap). */
export function busyScene(start = 0xfffff000, seed = 7n): BusyScene {
  const api = create(seed);
  setPolicy(api, 0, {
    maxAttempts: 5,
    attemptTimeout: 2000,
    baseDelay: 300,
    maxDelay: 4000,
    deadline: 60000,
  });
  setPolicy(api, 3, {
    maxAttempts: 3,
    attemptTimeout: 1500,
    baseDelay: 700,
    maxDelay: 700,
    idempotent: false,
  });
  const budget = budgetArgs({
    capacity: 500000,
    initial: 400000,
    retryCost: 5000,
    timeoutRetryCost: 10000,
    threshold: 0,
    failureCost: 0,
    firstAttemptDeposit: 0,
    successDeposit: 1000,
    refundOnSuccess: true,
  });
  if (api.setBudget(...budget) !== 0) throw new Error("setBudget refused");
  let now = start;
  const handles: number[] = [];
  const begin = (policy: number) => {
    const h = api.begin(policy, now);
    handles.push(h);
    return h;
  };
  const released = begin(3);
  api.cancel(released, now);
  api.release(released);
  const a = begin(0); // will wait for a retry
  const b = begin(3); // will be in flight
  const c = begin(0); // will succeed, handed out
  const d = begin(3); // will end AMBIGUOUS, not handed out
  for (let h = api.poll(now); h >= 0; h = api.poll(now)) {
    if (h === a) api.report(a, 1, Outcome.TRANSIENT, 0, now);
    if (h === c) api.report(c, 1, Outcome.SUCCESS, 0, now);
    if (h === d) api.report(d, 1, Outcome.AMBIGUOUS, 0, now);
  }
  if (api.ended(now) !== c) throw new Error("scene: c should be handed out first");
  now = tickAfter(now, 100);
  begin(0); // stays due: never polled
  api.report(b, 7, Outcome.SUCCESS, 0, now); // stale: counted
  return { api, handles: [...new Set(handles)], now };
}
