// One device of the broker-restart experiment: it holds one connection to the broker and
// reconnects after the restart drops it, either by a client's own formula or through a
// tickretry session in its own instance of the module.
import { Outcome, Result, State, configure, create, type TickRetryApi } from "tickretry";
import type { Broker } from "./model.js";
import type { BrokerStrategy, FormulaStrategy, ModuleStrategy } from "./strategies.js";

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

class ModuleDevice implements Device {
  connected = false;
  private readonly api: TickRetryApi;
  private readonly h: number;
  private answer: { ok: boolean; atMs: number; attempt: number } | undefined;

  constructor(
    s: ModuleStrategy,
    private readonly broker: Broker,
    seed: bigint,
    private readonly clockOffset: number,
    private readonly sent: SendHook,
    private readonly live: () => number,
    startMs: number,
  ) {
    this.api = create(seed);
    configure(this.api, `strategy ${s.name}`, 0, s.policy);
    this.h = this.api.begin(0, this.tick(startMs));
  }

  private tick(t: number): number {
    return (t + this.clockOffset) >>> 0;
  }

  wake(t: number): number {
    const now = this.tick(t);
    if (this.answer && this.answer.atMs <= t) {
      const outcome = this.answer.ok ? Outcome.SUCCESS : Outcome.TRANSIENT;
      this.api.report(this.h, this.answer.attempt, outcome, 0, now);
      this.answer = undefined;
    }
    if (this.api.poll(now) === this.h) {
      this.sent(t);
      this.answer = { ...this.broker.connect(t, this.live()), attempt: this.api.attempt(this.h) };
    }
    this.connected = this.api.state(this.h) === State.UP;
    const due = this.api.nextDue(now);
    const next = due === 0xffffffff ? Infinity : t + due;
    return this.answer ? Math.min(this.answer.atMs, next) : next;
  }

  dropped(t: number): number {
    // A handshake under way fails with the restart; a connection that was UP drops.
    if (this.answer) this.answer = { ...this.answer, ok: false, atMs: t };
    else if (this.connected && this.api.drop(this.h, this.tick(t)) !== Result.OK) {
      throw new Error("the module refused to drop an UP session");
    }
    this.connected = false;
    return this.wake(t);
  }
}

/** A device for strategy `s`: seeded, with its own one-second phase and tick counter. */
export function makeDevice(
  s: BrokerStrategy,
  broker: Broker,
  random: () => number,
  sent: SendHook,
  live: () => number,
  startMs: number,
): Device {
  if (s.kind === "formula") {
    return new FormulaDevice(s, broker, random, Math.floor(random() * 1000), sent, live, startMs);
  }
  const seed = BigInt(Math.floor(random() * 2 ** 32)) * 2n ** 20n + 7n;
  return new ModuleDevice(s, broker, seed, Math.floor(random() * 2 ** 32), sent, live, startMs);
}
