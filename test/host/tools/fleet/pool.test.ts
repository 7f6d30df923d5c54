// The pool is exact: a random fleet run with one module instance per device and run again
// with every device a state block swapped through one instance gives every device every
// export result in the same order, and the same record.
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { Result } from "../../../../host/library/src/generated/abi.js";
import { restoreImage } from "../../../../host/library/src/image.js";
import { instantiate, type TickRetryApi } from "../../../../host/library/src/tickretry.js";
import { StatePool, type Instances } from "../../../../host/tools/src/fleet/instances.js";
import { experimentSettings, type FleetSettings } from "../../../../host/tools/src/fleet/settings.js";
import { runFleet } from "../../../../host/tools/src/fleet/simulator.js";
import { STRATEGIES, withBoot, type BootMode } from "../../../../host/tools/src/fleet/strategies.js";
import { savedArb } from "../../../assembly/harness/images.js";
import { encodeImage } from "../../../assembly/model/image.js";
import { perDevice } from "../../../helpers/instances.js";

const blockOf = (api: TickRetryApi) => [
  ...new Uint32Array(api.memory.buffer, api.stateAddress(), api.stateBytes() / 4),
];

/** `inner`, with every export call of every device logged as "device fn(args) = result". */
function recording(inner: Instances, log: string[]): Instances {
  const apis = new Map<number, TickRetryApi>();
  const wrap = (i: number): TickRetryApi => {
    const api = inner.api(i);
    const logged: Record<string, unknown> = {};
    // Every call: the exports and the queries the wrapper makes of `field`.
    const calls = Object.keys(api).filter((fn) => typeof api[fn as keyof TickRetryApi] === "function");
    for (const fn of calls as (keyof TickRetryApi)[]) {
      logged[fn] = (...args: number[]) => {
        const result = Reflect.apply(api[fn] as (...a: number[]) => number, api, args) as number;
        log.push(`${i} ${fn}(${args.join(",")}) = ${result}`);
        return result;
      };
    }
    Object.defineProperty(logged, "memory", { get: () => api.memory });
    return logged as unknown as TickRetryApi;
  };
  return {
    api: (i) => apis.get(i) ?? (apis.set(i, wrap(i)), apis.get(i)!),
    enter: (i) => inner.enter(i),
    restored: (i) => inner.restored(i),
  };
}

const fleetArb = fc.record({
  devices: fc.integer({ min: 1, max: 24 }),
  durationMs: fc.integer({ min: 1000, max: 16_000 }),
  arrivals: fc.constantFrom("open" as const, "closed" as const),
  clocks: fc.constantFrom("wrap" as const, "zero" as const, "random" as const),
  ties: fc.constantFrom("fifo" as const, "random" as const),
  strategy: fc.constantFrom("A", "B", "C", "D"),
  boot: fc.option(fc.constantFrom<BootMode>("restore", "restore-no-clock", "afresh"), { nil: undefined }),
  seed: fc.nat(),
});

test.prop([fleetArb], { numRuns: 15 })(
  "a pooled fleet gives every device the results an instance per device gives",
  ({ devices, durationMs, arrivals, clocks, ties, strategy, boot, seed }) => {
    const settings: FleetSettings = { ...experimentSettings(devices), durationMs, arrivals, clocks, ties };
    let chosen = STRATEGIES[strategy];
    if (boot !== undefined) {
      // A power cut in the middle of the run: saves, restores and re-inits of every device.
      settings.powerCut = { atMs: Math.floor(durationMs / 3), outageMs: Math.floor(durationMs / 6) };
      chosen = withBoot(chosen, boot);
    }
    const [alone, pooled]: string[][] = [[], []];
    const a = runFleet(settings, chosen, seed, undefined, recording(perDevice(devices), alone));
    const b = runFleet(settings, chosen, seed, undefined, recording(new StatePool(devices), pooled));
    expect(pooled.length).toBe(alone.length);
    expect(pooled).toEqual(alone);
    expect(b).toEqual(a);
    expect(alone.length).toBeGreaterThan(devices * 3); // every device init, configure, ... at least
  },
);

// The pool copies a block only up to the end of the slots its device has used, which begin
// fills lowest first; an image may fill any slot, so restored() makes the whole block count.
test.prop([savedArb, fc.nat()], { numRuns: 40 })(
  "a device restored from any image restore accepts keeps every slot of it in the pool",
  (saved, now) => {
    const image = encodeImage(saved);
    const alone = instantiate();
    expect(restoreImage(alone, image, now)).toBe(Result.OK);
    const pool: Instances = new StatePool(2);
    pool.enter(0);
    expect(restoreImage(pool.api(0), image, now)).toBe(Result.OK);
    pool.restored(0);
    pool.enter(1);
    expect(blockOf(pool.api(1)).every((w) => w === 0)).toBe(true);
    pool.enter(0);
    expect(blockOf(pool.api(0))).toEqual(blockOf(alone));
  },
);
