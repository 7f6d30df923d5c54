// The simulator's application driven like the firmware's on this machine: the twin of
// test/boards/app_host/app_host.c over the simulator's own Device (host/tools/src/device/),
// on a virtual clock with its state in memory and uploads through a scripted upstream. It
// reads the same scripts (test/app-scenarios/*.txt) and prints the same trace lines
// (test/app-scenarios/README.md); app-differential.test.ts compares the two.
import { createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { EndReason, formatEvent, type LoopEvent, type TraceEvent } from "../../../host/library/src/index.js";
import { memoryStore, type CrashPoint, type StateStore } from "../../../host/tools/src/device/app/kept.js";
import { PBKDF2_ITERATIONS, passwordProblem } from "../../../host/tools/src/device/app/password.js";
import type { LogEvent } from "../../../host/tools/src/device/app/readings.js";
import type { Ask, Reply } from "../../../host/tools/src/device/app/requests.js";
import { message } from "../../../host/tools/src/device/page/routes.js";
import type { BootKind } from "../../../host/tools/src/device/boot.js";
import { VirtualClock } from "../../../host/tools/src/device/clock.js";
import { Device } from "../../../host/tools/src/device/device.js";
import { publicKeyFromRaw, verifySignedModule } from "../../../host/tools/src/device/module-signature.js";
import { ROOT } from "../../helpers/command.js";
import type { BootedDevice } from "../../../host/tools/src/device/options.js";
import { FATES, ScriptedUpstream, type Fate } from "./scripted-upstream.js";
import { BROKER_STATES, ScriptedBroker, type BrokerState } from "./scripted-broker.js";
import { BROKER } from "../../../host/tools/src/device/policies.js";

/** host_hal.h's HOST_UPSTREAM_URL: the upload URL before any settings. */
const UPSTREAM_URL = "http://upstream.invalid/";

/** What "module good|forged|trap" uploads, and the test build key that signed it (app_host/modules.ts). */
const MODULES = `${ROOT}build/app-modules/`;
const TEST_KEY = () =>
  publicKeyFromRaw(Buffer.from(readFileSync(`${MODULES}test-key.pub`, "utf8").trim(), "hex"));

/** host_hal.c's RTC at power-on. */
const WALL_AT_POWER_ON = 1_700_000_000_000;

/** The seed device.c's first app_device_start_afresh takes from host_hal.c's random_bytes (xorshift32, a byte each). */
export function hostSeed(): bigint {
  let x = 0x2545f491;
  const bytes = Array.from({ length: 8 }, () => {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    return BigInt(x & 0xff);
  });
  return bytes.reduce((seed, b, i) => seed | (b << BigInt(8 * i)), 0n);
}

/** The formatter's event from the loop's (an end's attempt is its attempt count). */
function traceEvent(e: LoopEvent): TraceEvent {
  if (e.kind === "end") return { ...e, attempts: e.attempt };
  return { operationId: 0, ...e } as TraceEvent;
}

const BOOT_WORDS: Record<BootKind, string> = {
  "power-on": "power-on",
  restart: "power-on",
  reboot: "reset",
  "deep sleep": "timer wake",
};

/** Thrown at an armed crash point: the pass ends there, as a board's panic ends it. */
class Crash extends Error {}

/** One run of a script: the device, its upstream, and the trace so far. */
class Sim {
  readonly lines: string[] = [];
  readonly clock = new VirtualClock(WALL_AT_POWER_ON);
  readonly store: StateStore;
  readonly upstream: ScriptedUpstream;
  /** The MQTT scenarios' broker ("transport mqtt"), else none: uploads go over HTTP. */
  readonly broker?: ScriptedBroker;
  device!: Device;
  private readonly seqOf = new Map<number, number>();
  /** The epoch each upload began in, by operation id: the board's key is it and the
   * operation id (a queued reading may begin in a later boot than it was taken in). */
  private readonly beganIn = new Map<number, number>();
  private seq = 0;
  private dropped = 0;
  private writes = 0;
  /** "crash POINT N": the point, the time it is to be reached, and how often it was. */
  private crashAt = { point: "", nth: 0, seen: 0 };
  /** The next boot is a crash's reset (RTC memory kept: the board's words). */
  private resetByCrash = false;
  /** A module upload the device took and has not answered (its trial runs in a worker). */
  private moduleAsked = false;

  constructor(mqtt: boolean) {
    const seqOf = (id: number) => this.seqOf.get(id) ?? 0;
    const keyOf = (op: number) => `${this.beganIn.get(op)}:${op}`;
    this.upstream = new ScriptedUpstream(this.clock, (line) => this.say(line), seqOf, keyOf);
    if (mqtt) this.broker = new ScriptedBroker(this.clock, (line) => this.say(line), seqOf, keyOf);
    this.store = this.tracedStore(memoryStore());
    this.powerOn();
  }

  say(line: string, device: BootedDevice = this.device): void {
    this.lines.push(`${device.running.tick.read()} ${line}`);
  }

  /** A device on this run's store: at power-on, and again after a power cut. */
  powerOn(): void {
    this.device = new Device({
      upstreamUrl: UPSTREAM_URL,
      seed: hostSeed(),
      tickStart: 0,
      clock: this.clock,
      store: this.store,
      link: this.upstream.link,
      mqtt: this.broker && {
        link: this.broker,
        own: { url: "mqtt://broker.invalid", clientId: "a0b1c2d3e4f5" },
        takenClientIds: [],
        policy: BROKER,
        brokerUrl: "mqtt://broker.invalid",
      },
      onLoopEvent: (e) => this.event(e),
      onBoot: (device, resumed) => this.booted(device, resumed),
      onSleep: (ms) => this.say(`deep sleep ${ms} next reading in ${this.readingIn()}`),
      crash: (point) => this.crashPoint(point),
    });
    this.device.start();
  }

  /** A deep sleep now; the script's clock stands at the wake (its first pass comes with the next run). */
  sleep(ms: number): void {
    this.device.deepSleep(ms);
    while (this.device.asleepForMs() !== undefined && this.clock.step());
  }

  /** The page's "password PW" (host_page.c's): the rule and the hash are the page's, the rest the pass's. */
  password(password: string): void {
    const problem = passwordProblem(password);
    if (problem !== undefined) return this.say(`page 400 ${problem}`);
    const salt = randomBytes(16);
    const hash = pbkdf2Sync(password, salt, PBKDF2_ITERATIONS, 32, "sha256").toString("hex");
    const stored = `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${salt.toString("hex")}$${hash}`;
    this.ask({ kind: "password", hash: stored, first: !this.device.password.isSet });
  }

  /** The page's "settings SSID PASS URL" ("-": empty), checked by the pass. */
  settings(ssid: string, pass: string, url: string): void {
    const field = (text: string) => (text === "-" ? "" : text);
    const form = new URLSearchParams({ ssid: field(ssid), password: field(pass), upstreamUrl: field(url) });
    this.ask({ kind: "settings", form, notUtf8: new Set() });
  }

  /** The page's "module KIND" (handlers.ts's): the signature checked at once, the rest the pass's. */
  module(kind: string): void {
    const checked = verifySignedModule(readFileSync(`${MODULES}${kind}.signed.wasm`), TEST_KEY());
    if (!checked.ok) return this.say(`page 422 ${message("moduleRefused")}${checked.reason}.`);
    this.moduleAsked = true;
    this.ask({ kind: "module", module: checked.module }, () => {
      this.moduleAsked = false;
      if (this.device.module.onTrial) this.say("module trial");
    });
  }

  /** An ask posted for the next pass; its answer said as the pass gives it. */
  private ask(ask: Ask, then?: () => void): void {
    this.device.requests.post(ask, (r: Reply) => {
      const refused = r.status === 400 && r.fields !== undefined ? ` (${Object.keys(r.fields)[0]})` : "";
      const reason = r.reason ?? "";
      this.say(`page ${r.status} ${r.key === undefined ? reason : message(r.key) + reason}${refused}`);
      then?.();
    });
  }

  /**
   * The trial of a module the last pass took runs in a worker, in real time: the virtual
   * clock waits for it, so that the swap it asks comes at the next pass, as the board's does.
   */
  private async trialsDone(): Promise<void> {
    while (this.moduleAsked && !this.device.requests.waiting) await sleep(2);
  }

  armCrash(point: string, nth: number): void {
    this.crashAt = { point, nth, seen: 0 };
  }

  private crashPoint(point: CrashPoint): void {
    if (point !== this.crashAt.point || ++this.crashAt.seen !== this.crashAt.nth) return;
    this.say(`crash ${point}`);
    throw new Crash(point);
  }

  /** `ms` of the script's clock; a crash on the way restarts the device on its store and runs on. */
  async run(ms: number): Promise<void> {
    const end = this.clock.nowMs() + ms;
    for (;;) {
      try {
        while (this.clock.step(end)) await this.trialsDone();
        return this.clock.advance(end - this.clock.nowMs());
      } catch (err) {
        if (!(err instanceof Crash)) throw err;
        this.resetByCrash = true;
        this.powerCut();
        this.resetByCrash = false;
      }
    }
  }

  /** The power goes: the process's device with it; a new one boots on the store. */
  powerCut(): void {
    this.device.stop();
    this.powerOn();
  }

  summary(): void {
    this.say(`store writes ${this.writes}`);
    const d = this.device;
    this.say(
      `summary live ${d.uploads.ops.size} queued ${d.readings.queue.length} dropped ${d.readings.dropped} seq ${this.seq}`,
    );
  }

  private readingIn(device: BootedDevice = this.device): number {
    return device.readings.dueIn(device.running.tick.read()) ?? 0;
  }

  /** A boot's lines (a device's first boot is in its constructor, before this.device is it). */
  private booted(device: BootedDevice, resumed: boolean): void {
    const kind = device.boot.kind;
    this.say(`boot ${this.resetByCrash ? "reset" : BOOT_WORDS[kind]}`, device);
    if (!resumed) this.say("scheduler afresh", device);
    const how = kind === "deep sleep" ? "deep sleep" : "restart";
    if (resumed) this.say(`resumed ${how} next reading in ${this.readingIn(device)}`, device);
    const rolledBack = device.module.rolledBack;
    if (rolledBack !== undefined) this.say(`module rollback ${rolledBack}`, device);
  }

  private event(e: LoopEvent): void {
    this.say(`event ${formatEvent(traceEvent(e))}`);
  }

  /** What a state write made durable (its outbox): readings taken, begun, ended or dropped. */
  private held(e: LogEvent): void {
    if (e.event === "taken") {
      this.seqOf.set(e.reading, ++this.seq);
      this.say(`reading seq ${this.seq}`);
    }
    if (e.event === "ended") {
      const reason = EndReason[e.endReason as keyof typeof EndReason];
      this.say(`ended seq ${this.seqOf.get(e.reading)} reason ${reason}`);
    }
    if (e.event === "dropped") this.say(`reading dropped ${++this.dropped}`);
    if (e.event === "began") this.beganIn.set(e.operationId, this.device.readings.epoch);
  }

  /** The store, each write said with a hash of the image in it. */
  private tracedStore(inner: StateStore): StateStore {
    return {
      where: inner.where,
      password: inner.password,
      settings: inner.settings,
      load: () => inner.load(),
      save: (state) => {
        const bytes = inner.save(state);
        this.writes++;
        const hash = createHash("sha256").update(state.image).digest("hex").slice(0, 8);
        this.say(`store write ${bytes} bytes image hash ${hash}`);
        state.outbox.forEach((e) => this.held(e));
        return bytes;
      },
    };
  }
}

/** One script line; false when it is not a command (app_host.c's command()). */
async function command(sim: Sim, line: string): Promise<boolean> {
  const [word, arg, third, fourth] = line.trim().split(/\s+/);
  const ms = Number(third ?? arg);
  const fate = FATES.includes(arg as Fate) ? (arg as Fate) : undefined;
  if (word === "" || word.startsWith("#")) return true;
  // The script's transport: the one this device was made with (runSim reads it first).
  if (word === "transport") return arg === (sim.broker ? "mqtt" : "http");
  if (word === "net" && fate && third !== undefined) sim.upstream.script(fate, ms);
  else if (word === "fallback" && fate && third !== undefined) sim.upstream.setFallback(fate, ms);
  else if (word === "run" && arg !== undefined) await sim.run(ms);
  else if (word === "sleep" && arg !== undefined) sim.sleep(ms);
  else if (word === "upload") sim.device.requests.askUpload();
  else if (word === "ask-restart") sim.device.requests.reboot();
  else if (word === "ask-sleep" && arg !== undefined) sim.device.requests.deepSleep(ms);
  else if (word === "reboot") sim.device.reboot();
  else if (word === "powercut") sim.powerCut();
  else if (word === "crash" && third !== undefined) sim.armCrash(arg, ms);
  else if (word === "password" && arg !== undefined) sim.password(arg);
  else if (word === "settings" && fourth !== undefined) sim.settings(arg, third, fourth);
  else if (word === "module" && arg !== undefined) sim.module(arg);
  else if (word === "broker" && sim.broker && BROKER_STATES.includes(arg as BrokerState))
    sim.broker.set(arg as BrokerState, Number(third ?? 0));
  else return false;
  return true;
}

/** Runs `script` (test/app-scenarios/'s command language): the trace, one entry a line. */
export async function runSim(script: string): Promise<string[]> {
  const sim = new Sim(/^transport mqtt$/m.test(script));
  for (const line of script.split("\n")) {
    if (!(await command(sim, line))) throw new Error(`not a command: ${line}`);
  }
  sim.summary();
  sim.device.stop();
  return sim.lines;
}
