// "Changes nothing", checked twice: everything observable right after the call, and
// everything a continuation can draw out later (the clock, the PRNG, the budget), by
// comparing an instance that took the call with a twin that did not.
import { expect } from "vitest";
import { Outcome } from "../../host/library/src/generated/abi.js";
import type { TickRetryApi } from "../../host/library/src/tickretry.js";
import { tickAfter } from "../../host/library/src/ticks.js";
import { snapshot } from "../assembly/harness/snapshot.js";

/** An instance with some history, and the handles it holds. */
export interface Scene {
  api: TickRetryApi;
  handles: number[];
  now: number;
}

/** Drives a scene on for a while and returns every result, so two scenes can be compared. */
function continuation(scene: Scene): number[] {
  const { api } = scene;
  const out: number[] = [];
  for (let k = 1; k <= 60; k++) {
    const now = tickAfter(scene.now, k * 137);
    out.push(api.nextDue(now));
    for (let h = api.poll(now); h >= 0; h = api.poll(now)) {
      out.push(h, api.attempt(h));
      out.push(
        api.report(h, api.attempt(h), k % 3 ? Outcome.TRANSIENT : Outcome.SUCCESS, 0, tickAfter(now, 5)),
      );
    }
    if (k % 20 === 0) out.push(api.begin(0, now));
    for (const h of scene.handles) out.push(api.state(h), api.nextAttemptAt(h), api.tokens());
  }
  return out;
}

/**
 * Builds two identical scenes, calls `act` on one, expects `code`, and expects the two
 * to stay indistinguishable; `counterMoved` names a counter the call may add one to.
 */
export function expectNoEffect(
  build: () => Scene,
  act: (scene: Scene) => number,
  code: number,
  counterMoved?: number,
): void {
  const scene = build();
  const twin = build();
  // Fold what building changed, so changes() after the call shows only the call's own change.
  for (const s of [scene, twin]) s.api.changes();
  expect(act(scene)).toBe(code);
  const expected = snapshot(twin.api, twin.handles);
  if (counterMoved !== undefined) {
    expected[`counter(${counterMoved})`]++;
    expected.changes++; // a counter that moves is a durable change
  }
  expect(snapshot(scene.api, scene.handles)).toEqual(expected);
  expect(continuation(scene)).toEqual(continuation(twin));
}
