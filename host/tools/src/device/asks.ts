// What the page asked, carried out between passes (app/requests.ts): each ask goes to the
// room that owns what it changes, and its answer back to the page. A module swap takes two
// passes: the first checks the upload (its signature the page checked) and saves the running
// state for its trial (in a worker, under a time limit, while the loop runs on: module.ts,
// trialRun); once the trial passes, the next pass swaps it in, and it runs under trial
// (module.ts, RunningModule) until the next boot.
import { ABI_VERSION, Result, Error as TickRetryError, errorName, saveImage } from "tickretry";
import type { Ask, Asked, Reply, Requests } from "./app/requests.js";
import type { World } from "./app/status.js";
import { checkSettings } from "./app/settings.js";
import { applyPolicy } from "./app/policy-apply.js";
import type { Kept } from "./app/kept.js";
import type { DevicePassword } from "./app/password.js";
import type { DeviceSettings } from "./app/settings.js";
import type { LoopStats } from "./loop-stats.js";
import type { RunningModule } from "./module.js";
import type { Running } from "./running.js";
import type { DeviceOptions } from "./options.js";
import { moduleVersion, trialRun } from "./module.js";
import { isScenarioName } from "../upstream/scenarios.js";

/** The rooms an ask changes, between passes: the device's, not the device itself. */
export interface AskedRooms {
  readonly settings: DeviceSettings;
  readonly requests: Requests;
  readonly password: DevicePassword;
  readonly module: RunningModule;
  readonly running: Running;
  readonly kept: Kept;
  readonly loopStats: LoopStats;
}

const ok = (key: string): Reply => ({ status: 200, key });
const moduleRefused = (why: string): Reply => ({ status: 422, key: "moduleRefused", reason: `${why}.` });
const storeFailed = (err: unknown): Reply => ({
  status: 507,
  key: "storeFailed",
  reason: ` (${(err as Error).message})`,
});

function settings(device: AskedRooms, form: URLSearchParams, notUtf8: Set<string>): Reply {
  const { current, takenClientIds } = device.settings;
  const checked = checkSettings(form, current, notUtf8, takenClientIds);
  if (!checked.ok) return { status: 400, key: "settingsRefused", fields: checked.errors };
  try {
    device.settings.save(checked.settings);
  } catch (err) {
    return storeFailed(err);
  }
  // The firmware's station takes new settings at boot: a restart follows (boards/app/asks.c).
  device.requests.reboot();
  // A secret the new URL may not have is cleared: the page shows why beside its field.
  const cleared = Object.keys(checked.cleared).length > 0 ? { fields: checked.cleared } : {};
  return { ...ok("settingsSavedRestarting"), ...cleared };
}

/** A first setup that another one beat while its hash was computed changes nothing. */
function password(device: AskedRooms, hash: string, first: boolean): Reply {
  if (first && device.password.isSet) return { status: 409, key: "passwordAlreadySet" };
  try {
    device.password.keep(hash);
  } catch (err) {
    return storeFailed(err);
  }
  return ok(first ? "passwordSet" : "passwordChanged");
}

/**
 * The upload's checks before its trial, none of which runs a line of it: that it compiles,
 * the version floor; then the running state to try it on. Its instantiation, abiVersion()
 * and the trial's calls run in the trial's worker, under its time limit.
 */
function checkModule(device: AskedRooms, bytes: Buffer) {
  let module: WebAssembly.Module;
  try {
    module = new WebAssembly.Module(new Uint8Array(bytes));
  } catch (err) {
    return moduleRefused((err as Error).message);
  }
  const version = moduleVersion(bytes);
  if (version < device.module.versionFloor) return { status: 422, key: "moduleRolledBack" };
  const now = device.running.tick.at(device.running.passMs);
  const image = saveImage(device.running.api, now);
  if (typeof image === "number")
    return moduleRefused(`the running module would not save its state (${errorName(image)})`);
  return { bytes, version, trial: { module, image, now, abiVersion: ABI_VERSION } };
}

/** The trial passed: the swap itself, in the next pass. */
function swap(device: AskedRooms, module: Buffer, version: number): Reply {
  const swapped = device.module.replace(device.running, module);
  if (swapped !== Result.OK)
    return moduleRefused(`its restore of the running state said ${errorName(swapped)}`);
  device.module.accept(version);
  return ok("moduleReplaced");
}

function startSwap(device: AskedRooms, bytes: Buffer, reply: (r: Reply) => void) {
  const checked = checkModule(device, bytes);
  if ("status" in checked) return reply(checked);
  void trialRun(checked.trial).then((failed) =>
    failed !== undefined
      ? reply(moduleRefused(failed))
      : device.requests.post({ kind: "swap", module: checked.bytes, version: checked.version }, reply),
  );
}

/** holdBreaker or releaseBreaker of a policy, at the pass's clock: a probe follows a release. */
function breaker(device: AskedRooms, policy: number, hold: boolean): Reply {
  const { api, tick, passMs } = device.running;
  const now = tick.at(passMs);
  const result = hold ? api.holdBreaker(policy, now) : api.releaseBreaker(policy, now);
  if (result === Result.OK) return ok(hold ? "breakerHeld" : "breakerReleased");
  if (result === TickRetryError.NOT_ISOLATED) return { status: 409, key: "breakerNotHeld" };
  if (result === TickRetryError.BAD_POLICY) return { status: 400, key: "noPolicy" };
  return { status: 500, reason: errorName(result) };
}

/** A control of the simulated world (the upstream, the embedded broker), applied in its turn with the rest. */
function inWorld(
  world: World,
  ask: Ask & { kind: "scenario" | "broker restart" },
  reply: (r: Reply) => void,
) {
  const { upstream, mqtt } = world;
  if (ask.kind === "scenario") {
    if (upstream === undefined || !isScenarioName(ask.name)) return reply({ status: 400, key: "noScenario" });
    upstream.setScenario(ask.name);
    return reply(ok("scenarioSwitched"));
  }
  const broker = mqtt?.broker;
  if (broker === undefined) return reply({ status: 400, key: "noBroker" });
  broker.restart().then(
    () => reply(ok("brokerRestarted")),
    (err: Error) => reply({ status: 500, reason: err.message }),
  );
}

/** The Policy view's draft, set on the module and kept. */
function policy(device: AskedRooms, form: URLSearchParams): Reply {
  const refused = applyPolicy(device.running.api, device.kept, form);
  return refused === undefined
    ? ok("policyApplied")
    : { status: 400, key: "policyRefused", reason: `${refused}.` };
}

/** Carries out every ask taken this pass, oldest first. */
export function applyAsks(device: AskedRooms, asked: readonly Asked[], options: DeviceOptions): void {
  for (const { ask, reply } of asked) {
    if (ask.kind === "settings") reply(settings(device, ask.form, ask.notUtf8));
    else if (ask.kind === "password") reply(password(device, ask.hash, ask.first));
    else if (ask.kind === "module") startSwap(device, ask.module, reply);
    else if (ask.kind === "swap") reply(swap(device, ask.module, ask.version));
    else if (ask.kind === "loop reset") reply((device.loopStats.reset(), ok("loopReset")));
    else if (ask.kind === "breaker") reply(breaker(device, ask.policy, ask.hold));
    else if (ask.kind === "policy") reply(policy(device, ask.form));
    else inWorld(options.world ?? {}, ask, reply);
  }
}
