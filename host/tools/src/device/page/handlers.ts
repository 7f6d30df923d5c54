// The simulated device's handler for each route of boards/page/routes.json, by the
// handler name the contract gives (routes.ts checks the two lists match). A handler runs
// once its route's guard has passed (server.ts) and its body has been read; it
// touches the device only through requests the next pass carries out (stall, upload,
// power) or read-only queries (status), and answers in the contract's words.
import type { IncomingMessage } from "node:http";
import type { KeyObject } from "node:crypto";
import { ABI_VERSION, Result, errorName, instantiate, saveImage } from "tickretry";
import { moduleVersion, trialRun, verifySignedModule } from "../module.js";
import { isScenarioName } from "../../upstream/scenarios.js";
import type { Upstream } from "../../upstream/server.js";
import type { Device } from "../device.js";
import { MAX_SLEEP_S, MAX_STALL_MS } from "../app/requests.js";
import { message } from "./routes.js";
import { DevicePassword, passwordProblem } from "../app/password.js";
import { checkSettings } from "../app/settings.js";
import type { StatusMemo } from "./status-delta.js";
import { deviceStatus } from "../app/status.js";
import { ok, refuse, refuseText, type Answer } from "./answers.js";
import type { MqttSide } from "../link/mqtt-simulation.js";

export interface SetupContext {
  device: Device;
  upstream?: Upstream;
  /** The MQTT side, when the device uploads over MQTT (its embedded broker the page may restart). */
  mqtt?: MqttSide;
  password: DevicePassword;
  buildKey?: KeyObject;
  /** What /status.json last wrote of each group (status-delta.ts). */
  statusMemo: StatusMemo;
}

/** What a handler gets: the request, and its body as its route reads it. */
export interface Input {
  req: IncomingMessage;
  form: URLSearchParams;
  notUtf8: Set<string>;
  bytes: Buffer;
  /** The device password was not set when this request was let through (a first setup). */
  firstSetup: boolean;
}

export type Handler = (ctx: SetupContext, input: Input) => Answer | Promise<Answer>;

/** A number in plain decimal digits (at most `digits`) from min to max, or undefined. */
function decimal(text: string, digits: number, min: number, max: number): number | undefined {
  const n = Number(text);
  return new RegExp(`^[0-9]{1,${digits}}$`).test(text) && n >= min && n <= max ? n : undefined;
}

async function password(ctx: SetupContext, { form, firstSetup }: Input): Promise<Answer> {
  const text = form.get("password") ?? "";
  const problem = passwordProblem(text);
  if (problem) return refuseText(400, problem, { password: problem });
  if (!firstSetup) {
    await ctx.password.set(text);
    return ok("passwordChanged");
  }
  // Two first setups at once: the one that claimed it first wins, the other changes nothing.
  return (await ctx.password.setFirst(text)) ? ok("passwordSet") : refuse(409, "passwordAlreadySet");
}

function settings(ctx: SetupContext, { form, notUtf8 }: Input): Answer {
  const { current, takenClientIds } = ctx.device.settings;
  const checked = checkSettings(form, current, notUtf8, takenClientIds);
  if (!checked.ok) return refuseText(400, message("settingsRefused"), checked.errors);
  try {
    ctx.device.settings.save(checked.settings);
  } catch (err) {
    return refuseText(507, `${message("storeFailed")} (${(err as Error).message})`);
  }
  // A secret the new URL may not have is cleared: the page shows why beside its field.
  const cleared = Object.keys(checked.cleared).length > 0 ? { fields: checked.cleared } : {};
  return { status: 200, body: { ok: true, message: message("settingsSaved"), ...cleared } };
}

function scenario(ctx: SetupContext, { form }: Input): Answer {
  const name = form.get("scenario") ?? "";
  if (ctx.upstream === undefined || !isScenarioName(name)) return refuse(400, "noScenario");
  ctx.upstream.setScenario(name);
  return ok("scenarioSwitched");
}

async function brokerRestart(ctx: SetupContext): Promise<Answer> {
  const broker = ctx.mqtt?.broker;
  if (broker === undefined) return refuse(400, "noBroker");
  await broker.restart();
  return ok("brokerRestarted");
}

function stall(ctx: SetupContext, { form }: Input): Answer {
  const ms = decimal(form.get("ms") ?? "", 6, 1, MAX_STALL_MS);
  if (ms === undefined) return refuse(400, "stallRule");
  ctx.device.requests.stall(ms);
  return ok("stall");
}

function sleep(ctx: SetupContext, { form }: Input): Answer {
  const s = decimal(form.get("s") ?? "", 4, 1, MAX_SLEEP_S);
  if (s === undefined) return refuse(400, "sleepRule");
  ctx.device.requests.deepSleep(s * 1000);
  return ok("sleep");
}

async function module(ctx: SetupContext, { bytes }: Input): Promise<Answer> {
  const refused = (reason: string) => refuseText(422, `${message("moduleRefused")}${reason}.`);
  const signed = verifySignedModule(bytes, ctx.buildKey);
  if (!signed.ok) return refused(signed.reason);
  let abiVersion: number;
  try {
    abiVersion = instantiate(new WebAssembly.Module(new Uint8Array(signed.module))).abiVersion();
  } catch (err) {
    return refused((err as Error).message);
  }
  if (abiVersion !== ABI_VERSION)
    return refused(`ABI version ${abiVersion}, this firmware has ${ABI_VERSION}`);
  const version = moduleVersion(signed.module);
  if (version < ctx.device.module.versionFloor) return refuse(422, "moduleRolledBack");
  const now = ctx.device.running.tick.read();
  const image = saveImage(ctx.device.running.api, now);
  if (typeof image === "number")
    return refused(`the running module would not save its state (${errorName(image)})`);
  const failed = await trialRun(signed.module, image, now);
  if (failed !== undefined) return refused(failed);
  const swapped = ctx.device.module.replace(ctx.device.running, signed.module);
  if (swapped !== Result.OK) return refused(`its restore of the running state said ${errorName(swapped)}`);
  ctx.device.module.accept(version);
  return ok("moduleReplaced");
}

export const HANDLERS: Record<string, Handler> = {
  status: (ctx, { req }) => {
    // ?since=SEQ: what changed since the page's last poll (status-delta.ts).
    const since = new URL(req.url ?? "/", "http://device").searchParams.get("since");
    const after = since !== null && /^[0-9]{1,10}$/.test(since) ? Number(since) : 0;
    const context = { upstream: ctx.upstream, mqtt: ctx.mqtt, devicePasswordSet: ctx.password.isSet };
    const status = deviceStatus(ctx.device, context);
    return { status: 200, body: ctx.statusMemo.answer(status, ctx.device.events.newest, after) };
  },
  module_bytes: (ctx) => ({ status: 200, type: "application/wasm", bytes: ctx.device.module.bytes }),
  password,
  settings,
  upload: (ctx) => (ctx.device.requests.upload(), ok("uploadBegun")),
  loop_reset: (ctx) => (ctx.device.loopStats.reset(), ok("loopReset")),
  reboot: (ctx) => (ctx.device.requests.reboot(), ok("reboot")),
  sleep,
  module,
  scenario,
  stall,
  broker_restart: brokerRestart,
};
