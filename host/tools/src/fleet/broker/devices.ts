// One device of the broker-restart experiment: it holds one connection to the broker and
// reconnects after the restart drops it, either by a client's own formula or through a
// tickretry session, its module state a block of the run's pool (../instances.ts), so
// that a run of any size holds (an instance per device exhausts the address space past
// some 12,800 devices).
import {
  Loop,
  LoopTable,
  NextDue,
  Outcome,
  Result,
  State,
  configure,
  seedHalves,
  type LoopHal,
} from "tickretry";
import type { Instances } from "../instances.js";
import type { Broker } from "./model.js";
import type { BrokerStrategy, FormulaStrategy, ModuleStrategy } from "./strategies.js";

/** Where a module device keeps its state: its index in the run's pool and loop table. */
export interface DeviceSlot {
  instances: Instances;
  loops: LoopTable;
  index: number;
}

/** What a device tells the run after a wake: when to wake next (Infinity: not before an event). */
export interface Device {
  connected: boolean;
  /** Handles what is due at `t`; returns the next wake-up. */
  wake(t: number): number;
  /** The broker restarted at `t`: the connection is gone (noticed at once). */
  dropped(t: number): number;
}

/** Counts every connect a device sends. */
export type SendHook = (t: number) => void;

class FormulaDevice implements Device {
  connected = false;
  private failures = 0;
  private attemptAt = 0;
  private answer: { ok: boolean; atMs: number } | undefined;

  constructor(
    private readonly s: FormulaStrategy,
    private readonly broker: Broker,
    private readonly random: () => number,
    private readonly phaseMs: number,
    private readonly sent: SendHook,
    private readonly live: () => number,
    startMs: number,
  ) {
    this.attemptAt = startMs;
  }

  wake(t: number): number {
    if (this.answer && this.answer.atMs <= t) {
      this.connected = this.answer.ok;
      this.answer = undefined;
      if (this.connected) this.failures = 0;
      else this.attemptAt = t + this.s.wait(++this.failures, this.random, this.phaseMs);
    }
    if (!this.connected && !this.answer && this.attemptAt <= t) {
      this.sent(t);
      this.answer = this.broker.connect(t, this.live());
    }
    return this.answer ? this.answer.atMs : this.connected ? Infinity : this.attemptAt;
  }

  dropped(t: number): number {
    // A handshake under way fails with the restart; a connection goes down.
    if (this.answer) this.answer = { ok: false, atMs: t };
    else if (this.connected) this.attemptAt = t + this.s.wait(++this.failures, this.random, this.phaseMs);
    this.connected = false;
    return this.wake(t);
  }
}

/** A tickretry session, run through the main loop (host/library/src/loop.ts) as every host
 * runs it: the broker's answer comes back through collect, the restart's drop through
 * dropped. Its state is entered into the pool's instance before each pass. */
class ModuleDevice implements Device {
  connected = false;
  private readonly loop: Loop;
  private readonly h: number;
  private answer: { ok: boolean; atMs: number; attempt: number } | undefined;
  private lost = false;
  /** The time of the wake running, ms. */
  private t: number;

  constructor(
    s: ModuleStrategy,
    private readonly broker: Broker,
    seed: bigint,
    private readonly clockOffset: number,
    private readonly sent: SendHook,
    private readonly live: () => number,
    startMs: number,
    private readonly slot: DeviceSlot,
  ) {
    slot.instances.enter(slot.index);
    const api = slot.instances.api(slot.index);
    api.init(...seedHalves(seed));
    configure(api, `strategy ${s.name}`, 0, s.policy);
    this.t = startMs;
    this.loop = new Loop(api, this.hal(), slot.loops, slot.index);
    this.h = this.loop.begin(0, this.tick(startMs));
  }

  private tick(t: number): number {
    return (t + this.clockOffset) >>> 0;
  }

  private hal(): LoopHal {
    return {
      ticks: () => this.tick(this.t),
      collect: () => {
        const a = this.answer;
        if (a === undefined || a.atMs > this.t) return undefined;
        this.answer = undefined;
        const outcome = a.ok ? Outcome.SUCCESS : Outcome.TRANSIENT;
        return { handle: this.h, attempt: a.attempt, outcome, retryAfter: 0 };
      },
      dropped: () => {
        if (!this.lost) return undefined;
        this.lost = false;
        return this.h;
      },
      startAttempt: (h, attempt) => {
        // An answer still to come belongs to an attempt the module timed out: given up.
        if (this.answer !== undefined) this.loop.abandon(h);
        this.sent(this.t);
        this.answer = { ...this.broker.connect(this.t, this.live()), attempt };
      },
      onEvent: (e) => {
        if (e.kind === "drop" && e.result !== Result.OK)
          throw new Error("the module refused to drop an UP session");
      },
    };
  }

  wake(t: number): number {
    this.t = t;
    this.slot.instances.enter(this.slot.index);
    const due = this.loop.pass();
    if (this.loop.fault !== 0) throw new Error(`the loop stopped: ${this.loop.fault}`);
    this.connected = this.loop.api.state(this.h) === State.UP;
    const next = due === NextDue.IDLE ? Infinity : t + due;
    return this.answer ? Math.min(this.answer.atMs, next) : next;
  }

  dropped(t: number): number {
    // A handshake under way fails with the restart; a connection that was UP is lost.
    if (this.answer) this.answer = { ...this.answer, ok: false, atMs: t };
    else if (this.connected) this.lost = true;
    this.connected = false;
    return this.wake(t);
  }
}

/** A device for strategy `s`: seeded, with its own one-second phase and tick counter; a
 * module device's state in `slot` (`slot()` gives it, made when first asked). */
export function makeDevice(
  s: BrokerStrategy,
  broker: Broker,
  random: () => number,
  sent: SendHook,
  live: () => number,
  startMs: number,
  slot: () => DeviceSlot,
): Device {
  if (s.kind === "formula") {
    return new FormulaDevice(s, broker, random, Math.floor(random() * 1000), sent, live, startMs);
  }
  const seed = BigInt(Math.floor(random() * 2 ** 32)) * 2n ** 20n + 7n;
  return new ModuleDevice(s, broker, seed, Math.floor(random() * 2 ** 32), sent, live, startMs, slot());
}
