// The simulated device's handler for each route of boards/page/routes.json, by the
// handler name the contract gives (routes.ts checks the two lists match). A handler runs
// once its route's guard has passed (server.ts) and its body has been read. It never
// touches the module, the store or the clock: it asks (device.requests, carried out by the
// next pass: device/asks.ts) and awaits the pass's answer, or reads the status snapshot
// the last pass made (test/host/tools/device/page-rules.test.ts holds it to that). It answers
// in the contract's words. A module upload's signature is checked here, as the board's
// handler checks it: the loop never sees a byte of an upload the build key did not sign.
import type { KeyObject } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Device } from "../device.js";
import { MAX_SLEEP_S, MAX_STALL_MS, type Ask } from "../app/requests.js";
import { message } from "./routes.js";
import { hashPassword, passwordProblem, type DevicePassword } from "../app/password.js";
import type { StatusMemo } from "./status-delta.js";
import { verifySignedModule } from "../module-signature.js";
import { ok, refuse, refuseText, type Answer } from "./answers.js";

export interface SetupContext {
  device: Device;
  /** The device password, read by the guard (set only by the pass). */
  password: DevicePassword;
  /** What /status.json last wrote of each group (status-delta.ts). */
  statusMemo: StatusMemo;
  /** The build key an uploaded module must be signed with (none: every upload is refused). */
  buildKey?: KeyObject;
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

/** `ask` of the next pass, and its answer in the contract's words. */
async function asked(ctx: SetupContext, ask: Ask): Promise<Answer> {
  const reply = await ctx.device.requests.ask(ask);
  if (reply.status === 200 && reply.fields === undefined) return ok(reply.key!);
  if (reply.status === 200)
    return { status: 200, body: { ok: true, message: message(reply.key!), fields: reply.fields } };
  const text = (reply.key === undefined ? "" : message(reply.key)) + (reply.reason ?? "");
  return refuseText(reply.status, text, reply.fields);
}

/** A number in plain decimal digits (at most `digits`) from min to max, or undefined. */
function decimal(text: string, digits: number, min: number, max: number): number | undefined {
  const n = Number(text);
  return new RegExp(`^[0-9]{1,${digits}}$`).test(text) && n >= min && n <= max ? n : undefined;
}

async function password(ctx: SetupContext, { form, firstSetup }: Input): Promise<Answer> {
  const text = form.get("password") ?? "";
  const problem = passwordProblem(text);
  if (problem) return refuseText(400, problem, { password: problem });
  return asked(ctx, { kind: "password", hash: await hashPassword(text), first: firstSetup });
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

/** Holds a policy's breaker open, or releases it: `policy` one digit (the pass refuses an id
 * the module has no policy for), `action` hold or release. */
function breaker(ctx: SetupContext, { form }: Input): Answer | Promise<Answer> {
  const policy = decimal(form.get("policy") ?? "", 1, 0, 9);
  const action = form.get("action");
  if (policy === undefined || (action !== "hold" && action !== "release")) return refuse(400, "breakerRule");
  return asked(ctx, { kind: "breaker", policy, hold: action === "hold" });
}

/** /status.json?since=SEQ: what changed since the page's last poll (status-delta.ts), of the pass's snapshot. */
async function status(ctx: SetupContext, { req }: Input): Promise<Answer> {
  const since = new URL(req.url ?? "/", "http://device").searchParams.get("since");
  const after = since !== null && /^[0-9]{1,10}$/.test(since) ? Number(since) : 0;
  const { status } = await ctx.device.requests.snapshot.read();
  const newest = status.events.at(-1)?.seq ?? 0;
  return { status: 200, body: ctx.statusMemo.answer(status, newest, after) };
}

export const HANDLERS: Record<string, Handler> = {
  status,
  module_bytes: async (ctx) => ({
    status: 200,
    type: "application/wasm",
    bytes: (await ctx.device.requests.snapshot.read()).moduleBytes,
  }),
  password,
  settings: (ctx, { form, notUtf8 }) => asked(ctx, { kind: "settings", form, notUtf8 }),
  upload: (ctx) => (ctx.device.requests.askUpload(), ok("uploadBegun")),
  loop_reset: (ctx) => asked(ctx, { kind: "loop reset" }),
  reboot: (ctx) => (ctx.device.requests.reboot(), ok("reboot")),
  sleep,
  module: (ctx, { bytes }) => {
    const checked = verifySignedModule(bytes, ctx.buildKey);
    if (!checked.ok) return refuseText(422, `${message("moduleRefused")}${checked.reason}.`);
    return asked(ctx, { kind: "module", module: checked.module });
  },
  scenario: (ctx, { form }) => asked(ctx, { kind: "scenario", name: form.get("scenario") ?? "" }),
  stall,
  broker_restart: (ctx) => asked(ctx, { kind: "broker restart" }),
  breaker,
  policy: (ctx, { form }) => asked(ctx, { kind: "policy", form }),
};
