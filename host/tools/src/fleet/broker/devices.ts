// The devices of the broker-restart experiment: each holds one connection to the broker and
// reconnects after the restart drops it, either by a client's own formula
// (formula-devices.ts) or through a tickretry session (module-devices.ts). A run's devices
// are all of one strategy, and they are rows of typed arrays, not an object each: at a
// million devices the objects' fields were far apart in memory, and each connect's answer
// was an object for the collector.
import type { Broker } from "./model.js";

/** What the devices need from the run around them. */
export interface DeviceHost {
  readonly broker: Broker;
  /** The run's seeded randomness, drawn in the order of its events. */
  readonly random: () => number;
  /** A device sends a connect at `t`. */
  sent(t: number): void;
  /** Devices connected now: their publishes load the broker. */
  live(): number;
}

/** Every device of a run, device i in row i. */
export abstract class Devices {
  /** 1 where the device's connection is up. */
  readonly connected: Uint8Array;
  /** When the answer to the device's connect under way arrives; Infinity: none is. */
  protected readonly answerAt: Float64Array;
  /** 1 where that answer is a served handshake. */
  protected readonly answerOk: Uint8Array;
  /** 1 where that answer is a handshake timeout (the broker dropped it, overloaded). */
  protected readonly answerBusy: Uint8Array;

  constructor(
    devices: number,
    protected readonly host: DeviceHost,
  ) {
    this.connected = new Uint8Array(devices);
    this.answerAt = new Float64Array(devices).fill(Infinity);
    this.answerOk = new Uint8Array(devices);
    this.answerBusy = new Uint8Array(devices);
  }

  /** Device `i` comes up at `t`, its first wake-up; its own draws of randomness follow the
   * draw of `t`. */
  abstract start(i: number, t: number): void;

  /** Handles what is due for device `i` at `t`; returns its next wake-up (Infinity: not
   * before an event). */
  abstract wake(i: number, t: number): number;

  /** The broker restarted at `t`: device `i`'s connection is gone (noticed at once). */
  abstract dropped(i: number, t: number): number;

  /** Device `i` sends a connect at `t`; its answer is due at answerAt[i]. */
  protected connect(i: number, t: number): void {
    const { broker } = this.host;
    this.host.sent(t);
    broker.connect(t, this.host.live());
    this.answerAt[i] = broker.answer.atMs;
    this.answerOk[i] = broker.answer.ok ? 1 : 0;
    this.answerBusy[i] = broker.answer.busy ? 1 : 0;
  }
}
