// The simulated device: the main loop (host/library/src/loop.ts, tickretry_loop.c's twin)
// over the application's rooms (app/, boards/app's twins), HTTP or MQTT (link/) and a state
// file; this file composes them (boot and power, pass scheduling). Each pass reads the clock
// once, and the state is on flash before any attempt leaves (app/sessions.ts), so a kill can
// neither lose a begun reading nor send one under two operation ids. The page (page/) runs
// between passes: it asks (asks.ts carries the asks out in the next pass) and reads the snapshot.
import { NextDue, errorName } from "tickretry";
import { BrokerSession } from "./app/broker.js";
import { crasher, Kept, memoryStore } from "./app/kept.js";
import { QUEUE_LIMIT, Readings, Uploads } from "./app/readings.js";
import { Requests, type PowerRequest, type Seen } from "./app/requests.js";
import { DevicePassword } from "./app/password.js";
import { deviceStatus } from "./app/status.js";
import { applyAsks } from "./asks.js";
import type { DeviceOptions } from "./options.js";
export type { DeviceOptions } from "./options.js";
import { loopHal } from "./app/sessions.js";
import { DeviceSettings } from "./app/settings.js";
import { bootModule, keptParts, startLoop, type BootInfo, type BootKind } from "./boot.js";
import { wallClock, type DeviceClock } from "./clock.js";
import { EventLog } from "./events.js";
import { LoopStats } from "./loop-stats.js";
import { BUILT_MODULE, ModuleFault, RunningModule } from "./module.js";
import { UPLOAD, mqttUpload } from "./policies.js";
import { LOOP, READINGS } from "./generated/app-config.js";
import type { Running } from "./running.js";
import { DeviceTick } from "./tick.js";

export class Device {
  readonly clock: DeviceClock;
  readonly loopStats = new LoopStats();
  /** What the page's live timeline draws: begins, attempt starts, answers, timeouts, ends, boots, sleeps. */
  readonly events: EventLog;
  readonly kept: Kept;
  readonly settings: DeviceSettings;
  readonly readings: Readings;
  readonly uploads: Uploads;
  /** What the page asked of the next pass, and the status the last pass made for it. */
  readonly requests = new Requests();
  readonly password: DevicePassword;
  readonly module: RunningModule;
  /** The broker connection's session (MQTT transport only). */
  readonly session?: BrokerSession;
  /** The module instance, its loop and its tick: made anew at every boot. */
  readonly running = { passMs: 0, rtcOffsetMs: 0 } as Running;
  boot!: BootInfo;
  private readonly config: DeviceOptions & { seed: bigint; idleSleepMs: number };
  /** Whether passes run, the next one's cancel, and when a deep sleep ends. */
  private readonly passes: { live: boolean; cancelNext?: () => void; asleepUntil?: number } = { live: false };

  constructor(options: DeviceOptions) {
    const seed = options.seed ?? crypto.getRandomValues(new BigUint64Array(1))[0];
    this.config = { ...options, seed, idleSleepMs: options.idleSleepMs ?? LOOP.passMaxWaitMs };
    this.clock = options.clock ?? wallClock;
    this.events = new EventLog(() => this.clock.wallMs());
    const policy = options.policy ?? UPLOAD;
    const fresh = {
      policy: options.mqtt ? mqttUpload(policy) : policy,
      budget: options.budget ?? "firmware",
    };
    const crash = options.crash ?? (options.crashAt && crasher(options.crashAt));
    this.kept = new Kept(options.store ?? memoryStore(), this.clock, fresh, options.log, crash);
    const rtcMs = () => this.clock.nowMs() + this.running.rtcOffsetMs;
    this.settings = new DeviceSettings(this.kept.store.settings, options.upstreamUrl, options.mqtt, () =>
      this.session?.renew(),
    );
    this.password = new DevicePassword(this.kept.store.password);
    if (options.mqtt) this.session = new BrokerSession(options.mqtt.link, rtcMs, options.brokerRefusedHoldMs);
    this.readings = new Readings(
      options.uploadEveryMs ?? READINGS.everyMs,
      options.queueLimit ?? QUEUE_LIMIT,
      this.kept,
    );
    this.uploads = new Uploads(this.running, this.events, this.kept, {
      mqtt: options.mqtt,
      link: options.link,
      upstreamUrl: () => this.settings.current.upstreamUrl,
      rtcMs,
      answered: () => crash?.("answer"),
      onEnd: options.onEnd,
    });
    this.module = new RunningModule(() => this.kept.markChanged());
    this.powerOn("power-on", 0);
    this.kept.started();
  }

  start(): void {
    this.passes.live = true;
    this.schedule(0);
  }

  /** Stops the loop and drops every request in flight. */
  stop(): void {
    this.passes.live = false;
    this.passes.cancelNext?.();
    this.powerDown();
  }

  /** ms until the device wakes, or undefined when it is awake. */
  asleepForMs(): number | undefined {
    const until = this.passes.asleepUntil;
    return until === undefined ? undefined : Math.max(0, until - this.clock.nowMs());
  }

  /**
   * Ends every live operation CANCELLED (each seen by onEnd) and drops its request: Ctrl-C
   * without a state file, where nothing would carry them to a next start.
   */
  cancelLive(): void {
    this.passes.live = false; // the pass below begins nothing, and none follows it
    this.passes.cancelNext?.();
    this.uploads.cancelAll(this.running.tick.read());
    this.runLoop(this.clock.nowMs());
  }

  private schedule(ms: number): void {
    if (!this.passes.live) return;
    this.passes.cancelNext = this.clock.after(ms, () => this.pass());
  }

  /** One pass of the loop at the clock's reading `ms`: what nextDue said. */
  private runLoop(ms: number): number {
    this.running.passMs = ms;
    const loop = this.running.loop;
    const due = loop.pass();
    if (loop.fault !== 0) throw new Error(`the loop stopped: ${errorName(loop.fault)}`);
    return due;
  }

  /**
   * One pass; an uploaded module that traps in it (a RuntimeError) or refuses to save is
   * dropped for the built one, which takes up the stored state as a reboot does: nothing
   * since the last state write is lost, the process runs on. A trap of the built module is
   * a bug: thrown.
   */
  private pass(): void {
    try {
      this.runPass();
    } catch (err) {
      const fault = err instanceof WebAssembly.RuntimeError || err instanceof ModuleFault;
      if (!fault || this.module.bytes === BUILT_MODULE) throw err;
      this.module.traps++;
      this.module.failed();
      this.powerDown();
      this.powerOn("reboot", this.boot.count);
      this.schedule(0);
    }
  }

  /** A pass in main.cpp's order: the page's asks, the loop, then a reboot or sleep that fell due. */
  private runPass(): void {
    const ms = this.clock.nowMs();
    this.loopStats.passStarted(ms);
    applyAsks(this, this.requests.takeAsks(), this.config);
    const due = this.runLoop(ms);
    const stall = this.requests.takeStall();
    if (stall > 0) this.clock.block(stall);
    this.loopStats.passEnded(this.clock.nowMs(), stall > 0);
    const power = this.requests.takePower(ms);
    if (power !== undefined) return this.cyclePower(power, this.clock.nowMs());
    // Until the module has work, but never long: answers, readings and the page come
    // sooner than nextDue knows (main.cpp's delay(tickretry_loop_sleep(due, ...))).
    const idle = this.config.idleSleepMs;
    this.requests.snapshot.passEnded(() => this.seen());
    this.schedule(due === NextDue.IDLE ? idle : Math.min(due, idle));
  }

  /** A reset now, between passes (a driver's; the page asks through requests). */
  reboot(): void {
    this.passes.cancelNext?.();
    this.cyclePower({ kind: "reboot" }, this.clock.nowMs());
  }

  /** A deep sleep of `ms` from now, between passes (a driver's; the page asks through requests). */
  deepSleep(ms: number): void {
    this.passes.cancelNext?.();
    this.cyclePower({ kind: "deep sleep", ms }, this.clock.nowMs());
  }

  /**
   * Loads the stored state into a new module instance (or starts a new one) and every room's
   * own records; after a deep sleep the next reading falls due `readingInMs` from now.
   */
  private powerOn(kind: BootKind, count: number, readingInMs?: number): void {
    const ms = this.clock.nowMs();
    const { running, config } = this;
    running.rtcOffsetMs = this.clock.wallMs() - ms;
    running.tick = new DeviceTick(this.clock, config.tickStart);
    const { policy, budget } = this.kept;
    const fresh = { seed: config.seed, policy, budget, broker: config.mqtt?.policy };
    const booted = bootModule(this.kept.store, running.tick.at(ms), fresh, ms + running.rtcOffsetMs);
    const s = booted.restored;
    running.api = booted.api;
    const live = () => this.passes.live;
    startLoop(
      running,
      loopHal({ ...this, live, parts: () => keptParts(this), onLoopEvent: config.onLoopEvent }),
      s,
    );
    const bootKind = kind === "power-on" && s !== undefined ? "restart" : kind;
    this.module.boot(s?.moduleVersion ?? 0);
    this.uploads.boot(s?.pending ?? [], ms, `restored at ${bootKind}`);
    this.readings.boot(s, kind === "deep sleep");
    if (readingInMs !== undefined) this.readings.dueAfter(running.tick.at(ms), readingInMs);
    this.kept.boot(s, running.api);
    this.session?.boot(running.api, running.loop, running.tick.at(ms), s?.session);
    if (s !== undefined) this.kept.restore(s);
    this.boot = {
      kind: bootKind,
      count: count + 1,
      elapsedMs: booted.elapsedMs,
      restoredOperations: s?.pending.length ?? 0,
      restoredQueued: this.readings.queue.length,
    };
    this.events.add(running.tick.at(ms), "boot", 0, 0);
    this.config.onBoot?.(this, s !== undefined);
  }

  /** What the page reads of the device, made by the pass. */
  private seen(): Seen {
    return { status: deviceStatus(this, this.config.world), moduleBytes: this.module.bytes };
  }

  /** Every connection dies and the instance with it; only the state store remains. */
  private powerDown(): void {
    this.session?.powerDown();
    this.uploads.powerDown();
  }

  /** A reset or a deep sleep; the reading timer survives a sleep (the board keeps it in RTC memory). */
  private cyclePower(power: PowerRequest, ms: number): void {
    this.powerDown();
    if (power.kind === "reboot") {
      this.powerOn("reboot", this.boot.count);
      return this.schedule(0);
    }
    const tick = this.running.tick.at(ms);
    const readingIn = this.readings.dueIn(tick) ?? 0;
    this.config.onSleep?.(power.ms);
    this.events.add(tick, "sleep", 0, 0);
    this.passes.asleepUntil = ms + power.ms;
    this.requests.snapshot.standsStill(() => this.seen());
    this.passes.cancelNext = this.clock.after(power.ms, () => {
      this.passes.asleepUntil = undefined;
      this.loopStats.resume();
      this.powerOn("deep sleep", this.boot.count, readingIn - power.ms);
      this.schedule(0);
    });
  }
}
