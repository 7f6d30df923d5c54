// The module the device runs, and the swap's checks, as the firmware has them
// (boards/app/module_swap.c, module_signature.c): its version, and a trial run before it
// replaces the running one. The build key's signature, which the page checks before the
// loop sees an upload, is module-signature.ts's.
//
// Anti-rollback: the version an uploaded module carries in its signed bytes, a custom
// section named "tickretry.version" holding a u32 little-endian (`npm run sign -- --version
// N` adds it before signing). A module without one is version 0. The device refuses a
// module below the highest version it accepted, as the sketch does
// (boards/app/module_signature.c, module_version, tested side by side).
import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { Image, Result, WASM_PATH, instantiate, restoreImage, saveImage } from "tickretry";
import type { Running } from "./running.js";
import { message } from "./page/routes.js";

export const VERSION_SECTION = "tickretry.version";

/** An unsigned LEB128 at `at`: its value and the offset after it, or undefined. */
function leb(bytes: Buffer, at: number): [number, number] | undefined {
  let v = 0;
  for (let shift = 0; shift < 35 && at < bytes.length; shift += 7) {
    const b = bytes[at++];
    v += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return [v, at];
  }
  return undefined;
}

/** The module's version, 0 without the section, -1 for bytes that are no module. */
export function moduleVersion(bytes: Buffer): number {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])))
    return -1;
  for (let at = 8; at < bytes.length;) {
    const id = bytes[at];
    const size = leb(bytes, at + 1);
    if (size === undefined || size[1] + size[0] > bytes.length) return -1;
    const [length, start] = size;
    const name = id === 0 ? leb(bytes, start) : undefined;
    if (
      name !== undefined &&
      name[0] === VERSION_SECTION.length &&
      start + length - name[1] === name[0] + 4
    ) {
      if (bytes.toString("latin1", name[1], name[1] + name[0]) === VERSION_SECTION) {
        return bytes.readUInt32LE(name[1] + name[0]);
      }
    }
    at = start + length;
  }
  return 0;
}

// A trial run of an uploaded module before it replaces the running one, in a worker thread
// with a time limit, as the board runs it under its task watchdog: the module is
// instantiated there (its start function, if it has one, runs), answers abiVersion(), then
// takes up the running state (restore) and makes the calls of a few passes over a few
// seconds of ticks (poll, ended, nextDue, save). A module that traps is refused with the
// trap's message; one still running when the limit passes (a loop) has its worker
// terminated and is refused, named by the step it was in. The device's own thread never
// runs a line of a module that has not passed: the swap instantiates it again there, and a
// module without imports does the same each time.
/** How long the trial may take, ms: the real module needs well under one. */
export const TRIAL_LIMIT_MS = 2000;

/** The trial's steps, as the worker reports them, and what a loop in each would be. */
const STEPS = {
  instantiation: ["its instantiation", "a loop in its start function?"],
  abiVersion: ["abiVersion()", "a loop?"],
  trial: ["its trial run", "a loop?"],
} as const;
type Step = keyof typeof STEPS;

// Plain JavaScript, run with eval in the worker: it imports nothing. It says which step it
// enters before it enters it, so a loop is named even though the worker never answers.
const TRIAL = `
const { parentPort, workerData: w } = require("node:worker_threads");
class Refused extends Error {}
let at;
const step = (name) => parentPort.postMessage({ step: (at = name) });
try {
  step("instantiation");
  const e = new WebAssembly.Instance(w.module, {}).exports;
  for (const [name, params] of Object.entries(w.exports)) {
    if (typeof e[name] !== "function" || e[name].length !== params)
      throw new Refused("it does not export " + name + " with " + params + " parameter(s)");
  }
  step("abiVersion");
  const abi = e.abiVersion();
  if (abi !== w.abiVersion) throw new Refused("ABI version " + abi + ", this firmware has " + w.abiVersion);
  step("trial");
  if (w.image.length <= w.areaBytes) new Uint8Array(e.memory.buffer, e.imageAddress(), w.image.length).set(w.image);
  e.restore(w.image.length, w.now, 0, 0);
  for (let pass = 0; pass < 10; pass++) {
    const tick = (w.now + pass * 1000) | 0;
    for (let i = 0; i < 64 && e.poll(tick) >= 0; i++);
    for (let i = 0; i < 64 && e.ended(tick) >= 0; i++);
    e.nextDue(tick);
    e.save(tick);
  }
  parentPort.postMessage({ done: "" });
} catch (err) {
  const how = err instanceof WebAssembly.RuntimeError ? "it trapped in " : "it failed in ";
  parentPort.postMessage({ done: err instanceof Refused ? err.message : how + w.where[at] + " (" + err.message + ")" });
}`;

/** What the device expects of an uploaded module before it swaps it in. */
export interface Trial {
  module: WebAssembly.Module;
  /** The running state to try it on, and the tick it was saved at. */
  image: Uint8Array;
  now: number;
  abiVersion: number;
}

/** The built module's functions and their parameter counts: what an upload must export alike. */
const exportShape = (): Record<string, number> =>
  Object.fromEntries(
    Object.entries(new WebAssembly.Instance(new WebAssembly.Module(BUILT_MODULE), {}).exports).flatMap(
      ([name, v]) => (typeof v === "function" ? [[name, v.length]] : []),
    ),
  );

const where = () => Object.fromEntries(Object.entries(STEPS).map(([step, [name]]) => [step, name]));

/** undefined when the module passed its trial, else why it did not. */
export function trialRun(t: Trial): Promise<string | undefined> {
  return new Promise((resolve) => {
    const worker = new Worker(TRIAL, {
      eval: true,
      workerData: { ...t, areaBytes: Image.AREA_BYTES, where: where(), exports: exportShape() },
    });
    let step: Step = "instantiation";
    const end = (why: string | undefined) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(why);
    };
    const timer = setTimeout(
      () => end(`it was still running after ${TRIAL_LIMIT_MS} ms of ${STEPS[step][0]} (${STEPS[step][1]})`),
      TRIAL_LIMIT_MS,
    );
    worker.on("message", (m: { step: Step } | { done: string }) => {
      if ("step" in m) step = m.step;
      else end(m.done === "" ? undefined : m.done);
    });
    worker.once("error", (err) => end(`its trial run failed (${err.message})`));
  });
}

/** The module a boot loads, as the firmware's flash holds it. */
export const BUILT_MODULE = readFileSync(WASM_PATH);

/** The module broke its contract (a save refused): a bug of the built one, a fault of an uploaded one. */
export class ModuleFault extends Error {}

/**
 * The module running: the built one from each boot on, or one the page swapped in, under
 * trial until the next boot. The trial's mark outlives a reboot, as the board's in RTC
 * memory does (boards/app/module_swap.h): an uploaded module that traps marks it failed,
 * and the boot after says so on the page's power card.
 */
export class RunningModule {
  /** Its bytes, as the page's playground fetches them. */
  bytes: Buffer = BUILT_MODULE;
  /** Uploaded modules that trapped at run time and were replaced by the built one (this process). */
  traps = 0;
  /** The highest module version accepted (anti-rollback; kept in the state file). */
  versionFloor = 0;
  /** What this boot's power card says of the last reset when it rolled an upload back. */
  rolledBack?: string;
  private mark?: "trial" | "failed";

  /** `changed`: the floor moved, for the next state write. */
  constructor(private readonly changed: () => void) {}

  /** A boot loads the built module: an uploaded one lives until the next boot, as on a board. */
  boot(versionFloor: number): void {
    this.bytes = BUILT_MODULE;
    this.versionFloor = versionFloor;
    this.rolledBack = this.mark === "failed" ? message("moduleTrapped") : undefined;
    this.mark = undefined;
  }

  /** An uploaded module runs under trial. */
  get onTrial(): boolean {
    return this.mark === "trial" && this.bytes !== BUILT_MODULE;
  }

  /** The module under trial trapped: the reboot that follows rolls it back. */
  failed(): void {
    if (this.onTrial) this.mark = "failed";
  }

  /**
   * Swaps in another build of the module (an upload whose signature the caller checked) as
   * the firmware's tickretry_wasm3_open does: the running instance's image is restored into
   * the new one, so operations, ids, budget and counters carry across and attempts in flight
   * still count. On a refusal (the module's error code) nothing changes.
   */
  replace(running: Running, bytes: Buffer): number {
    const now = running.tick.read();
    const image = saveImage(running.api, now);
    if (typeof image === "number") return image;
    const api = instantiate(new WebAssembly.Module(new Uint8Array(bytes)));
    const restored = restoreImage(api, image, now);
    if (restored !== Result.OK) return restored;
    running.api = api;
    running.loop.resume(api, running.loop.saveSlots(), false);
    this.bytes = bytes;
    this.mark = "trial";
    return Result.OK;
  }

  /** Raises the anti-rollback floor to `version`; the next pass stores it. */
  accept(version: number): void {
    if (version <= this.versionFloor) return;
    this.versionFloor = version;
    this.changed();
  }
}
