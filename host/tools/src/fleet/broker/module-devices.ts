// Devices that reconnect through a tickretry session, run through the main loop
// (host/library/src/loop.ts) as every host runs it: the broker's answer comes back through
// collect, the restart's drop through dropped. Each device's module state is a block of the
// run's pool (../instances.ts), entered before each pass, so that a run of any size holds (an
// instance per device exhausts the address space past some 12,800 devices). The devices
// share one Loop, moved to the device whose pass runs (its row of one LoopTable), and one
// HAL, which serves that device: a table's loops never run inside one another's pass.
import {
  Loop,
  LoopTable,
  NextDue,
  Outcome,
  Result,
  State,
  seedHalves,
  type AttemptAnswer,
  type LoopHal,
} from "tickretry";
import type { Instances } from "../instances.js";
import { applyStrategy, POLICY_ID } from "../strategies.js";
import { Devices, type DeviceHost } from "./devices.js";
import type { ModuleStrategy } from "./strategies.js";

export class ModuleDevices extends Devices {
  private readonly loop: Loop;
  /** The device's session, as begin gave it. */
  private readonly handle: Int32Array;
  /** The attempt the answer under way answers. */
  private readonly answerAttempt: Int32Array;
  /** 1: the connection that was UP is lost, for the next pass to drop. */
  private readonly lost: Uint8Array;
  /** Where the device's u32 tick counter stands at time 0. */
  private readonly clockOffset: Uint32Array;
  private readonly hal: LoopHal;
  /** How a handshake timeout is reported (ModuleStrategy.handshakeTimeout). */
  private readonly busy: Outcome;
  /** The device whose pass runs, and the time of that pass, ms. */
  private current = 0;
  private t = 0;

  constructor(
    private readonly s: ModuleStrategy,
    devices: number,
    host: DeviceHost,
    private readonly instances: Instances,
  ) {
    super(devices, host);
    this.handle = new Int32Array(devices);
    this.answerAttempt = new Int32Array(devices);
    this.lost = new Uint8Array(devices);
    this.clockOffset = new Uint32Array(devices);
    this.busy = Outcome[s.handshakeTimeout ?? "TRANSIENT"];
    this.hal = this.makeHal();
    this.loop = new Loop(instances.api(0), this.hal, new LoopTable(devices));
  }

  start(i: number, t: number): void {
    const random = this.host.random;
    const seed = BigInt(Math.floor(random() * 2 ** 32)) * 2n ** 20n + 7n;
    this.clockOffset[i] = Math.floor(random() * 2 ** 32);
    this.instances.enter(i);
    const api = this.instances.api(i);
    api.init(...seedHalves(seed));
    applyStrategy(api, this.s);
    this.loop.moveTo(i, api);
    this.loop.clear();
    this.handle[i] = this.loop.begin(POLICY_ID, this.tick(i, t));
  }

  wake(i: number, t: number): number {
    this.current = i;
    this.t = t;
    this.instances.enter(i);
    const loop = this.loop;
    loop.moveTo(i, this.instances.api(i));
    const due = loop.pass();
    if (loop.fault !== 0) throw new Error(`the loop stopped: ${loop.fault}`);
    this.connected[i] = loop.api.state(this.handle[i]) === State.UP ? 1 : 0;
    const next = due === NextDue.IDLE ? Infinity : t + due;
    return Math.min(this.answerAt[i], next);
  }

  dropped(i: number, t: number): number {
    // A handshake under way fails with the restart; a connection that was UP is lost.
    if (this.answerAt[i] < Infinity) ((this.answerOk[i] = this.answerBusy[i] = 0), (this.answerAt[i] = t));
    else if (this.connected[i]) this.lost[i] = 1;
    this.connected[i] = 0;
    return this.wake(i, t);
  }

  private tick(i: number, t: number): number {
    return (t + this.clockOffset[i]) >>> 0;
  }

  /** The HAL of every device's loop, serving `current` at `t`. Its answer is one object,
   * rewritten: the loop reads each answer before it collects the next. */
  private makeHal(): LoopHal {
    const answer: AttemptAnswer = { handle: 0, attempt: 0, outcome: 0, retryAfter: 0 };
    return {
      ticks: () => this.tick(this.current, this.t),
      collect: () => {
        const i = this.current;
        if (this.answerAt[i] > this.t) return undefined;
        this.answerAt[i] = Infinity;
        answer.handle = this.handle[i];
        answer.attempt = this.answerAttempt[i];
        answer.outcome = this.answerOk[i]
          ? Outcome.SUCCESS
          : this.answerBusy[i]
            ? this.busy
            : Outcome.TRANSIENT;
        return answer;
      },
      dropped: () => {
        const i = this.current;
        if (!this.lost[i]) return undefined;
        this.lost[i] = 0;
        return this.handle[i];
      },
      startAttempt: (h, attempt) => {
        const i = this.current;
        // An answer still to come belongs to an attempt the module timed out: given up.
        if (this.answerAt[i] < Infinity) this.loop.abandon(h);
        this.connect(i, this.t);
        this.answerAttempt[i] = attempt;
      },
      onEvent: (e) => {
        if (e.kind === "drop" && e.result !== Result.OK)
          throw new Error("the module refused to drop an UP session");
      },
    };
  }
}
