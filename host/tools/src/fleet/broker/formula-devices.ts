// Devices that reconnect by a client's own formula (strategies.ts: esp-mqtt, Tasmota,
// backoffAlgorithm, the published decorrelated jitter): after the drop or a failed
// connect, the strategy's wait for the failure's number (and the wait before it); a
// success resets both.
import { Devices, type DeviceHost } from "./devices.js";
import type { FormulaStrategy } from "./strategies.js";

export class FormulaDevices extends Devices {
  /** Failed connects (and drops) since the last success. */
  private readonly failures: Uint32Array;
  /** When the next connect is due. */
  private readonly attemptAt: Float64Array;
  /** The device's own one-second phase (Tasmota counts on it). */
  private readonly phaseMs: Uint16Array;
  /** The last wait drawn since the last success, 0 before one (decorrelated grows from it). */
  private readonly previous: Float64Array;

  constructor(
    private readonly s: FormulaStrategy,
    devices: number,
    host: DeviceHost,
  ) {
    super(devices, host);
    this.failures = new Uint32Array(devices);
    this.attemptAt = new Float64Array(devices);
    this.phaseMs = new Uint16Array(devices);
    this.previous = new Float64Array(devices);
  }

  start(i: number, t: number): void {
    this.phaseMs[i] = Math.floor(this.host.random() * 1000);
    this.attemptAt[i] = t;
  }

  wake(i: number, t: number): number {
    if (this.answerAt[i] <= t) {
      this.connected[i] = this.answerOk[i];
      this.answerAt[i] = Infinity;
      if (this.connected[i]) this.failures[i] = this.previous[i] = 0;
      else this.attemptAt[i] = t + this.nextWait(i);
    }
    if (!this.connected[i] && this.answerAt[i] === Infinity && this.attemptAt[i] <= t) this.connect(i, t);
    if (this.answerAt[i] < Infinity) return this.answerAt[i];
    return this.connected[i] ? Infinity : this.attemptAt[i];
  }

  dropped(i: number, t: number): number {
    // A handshake under way fails with the restart; a connection goes down.
    if (this.answerAt[i] < Infinity) ((this.answerOk[i] = 0), (this.answerAt[i] = t));
    else if (this.connected[i]) this.attemptAt[i] = t + this.nextWait(i);
    this.connected[i] = 0;
    return this.wake(i, t);
  }

  /** The wait after one more failure. */
  private nextWait(i: number): number {
    const wait = this.s.wait(++this.failures[i], this.host.random, this.phaseMs[i], this.previous[i]);
    this.previous[i] = wait;
    return wait;
  }
}
