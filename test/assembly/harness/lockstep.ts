// Runs a scenario on the module and on the model side by side and stops at the first
// step where any return value, any image save wrote, or any observable state differs.
import { RestoreFlag, Result } from "../../../host/library/src/generated/abi.js";
import { instantiate, type TickRetryApi } from "../../../host/library/src/tickretry.js";
import { SchedulerModel } from "../model/scheduler.js";
import {
  formatStep,
  Host,
  invoke,
  restoreInto,
  type Call,
  type ExportName,
  type RestoreStep,
  type Step,
  type Target,
} from "./calls.js";
import { readImage } from "./images.js";
import { LAYOUT, LAYOUT_RULES, type Layout } from "./layout.js";
import { diffSnapshots, snapshot } from "./snapshot.js";

export interface Divergence {
  /** Index of the step after which module and model differ. */
  index: number;
  step: string;
  differences: string[];
}

export interface LockstepOptions {
  /** First host tick. */
  start?: number;
  /** Compare a full snapshot after every `snapshotEvery`-th call (1: after every call). */
  snapshotEvery?: number;
  /** Queries cover at most this many of the most recent handles. */
  handleLimit?: number;
  /** The reference (default: the model); the soak's own test passes a wrong one. */
  reference?: () => Target;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** A module call's result, or why it trapped (a divergence like any other, to be shrunk). */
export function guarded(call: () => number): number | string {
  try {
    return call();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) return `trapped (${e.message})`;
    throw e;
  }
}

/** What the image calls did, by the module's answers: the soak prints it. */
export interface ImageTally {
  saves: number;
  /** Accepted restores into a fresh instance, into the running one, and those with ATTEMPTS_LOST. */
  restoredFresh: number;
  restoredInPlace: number;
  restoredLost: number;
  /** Restores refused (damaged, forged out of range, or bad arguments). */
  refused: number;
  /** Operations ended() handed out. */
  handedOut: number;
}

export class Lockstep {
  /** The instances in use: a restore into a fresh instance replaces both. */
  module: TickRetryApi = instantiate();
  model: Target;
  host: Host;
  private calls = 0;
  private readonly every: number;
  private readonly limit: number;
  private readonly reference: () => Target;
  /** The module's first answer to each layout query. */
  private readonly layout: Partial<Record<ExportName, number>> = {};
  readonly tally: ImageTally = {
    saves: 0,
    restoredFresh: 0,
    restoredInPlace: 0,
    restoredLost: 0,
    refused: 0,
    handedOut: 0,
  };

  constructor(options: LockstepOptions = {}) {
    this.host = new Host(options.start ?? 0);
    this.reference = options.reference ?? (() => new SchedulerModel());
    this.model = this.reference();
    this.every = options.snapshotEvery ?? 1;
    this.limit = options.handleLimit ?? 32;
  }

  /** A new host (clock at `start`, no handles) over the same module and model instances. */
  restart(start: number): void {
    this.host = new Host(start);
  }

  /** Runs one step on both; returns the differences (empty when they agree). */
  step(s: Step): string[] {
    if ("tick" in s) {
      this.host.move(s.tick);
      return [];
    }
    const diffs = "restore" in s ? this.restore(s) : this.call(s);
    if (diffs.some((d) => d.includes("trapped"))) return diffs; // its state means nothing now
    if (++this.calls % this.every === 0 || diffs.length > 0) {
      const handles = this.host.handles;
      diffs.push(
        ...diffSnapshots(
          snapshot(this.module, handles, this.limit),
          snapshot(this.model, handles, this.limit),
        ),
      );
    }
    return diffs;
  }

  private call(s: Call): string[] {
    const args = this.host.resolve(s.args, this.model);
    const got = guarded(() => invoke(this.module, s.fn, args));
    const want = invoke(this.model, s.fn, args);
    this.host.saw(s, want, this.model);
    if (typeof got === "string" || (!LAYOUT.includes(s.fn) && got !== want)) {
      return [`${s.fn}(${args.join(", ")}) returned ${got}, model ${want}`];
    }
    if (s.fn === "save" && got > 0) this.tally.saves++;
    if (s.fn === "ended" && got >= 0) this.tally.handedOut++;
    if (LAYOUT.includes(s.fn)) return this.checkLayout(s.fn, got);
    if (s.fn === "save" && got > 0) {
      const [mine, theirs] = [readImage(this.module, got), readImage(this.model, want)];
      if (hex(mine) !== hex(theirs)) return [`save(${args[0]}) image ${hex(mine)}, model ${hex(theirs)}`];
    }
    return [];
  }

  /** docs/ABI.md fixes no address, only that it stays put and within MEMORY_LIMIT (layout.ts). */
  private checkLayout(fn: ExportName, got: number): string[] {
    this.layout[fn] ??= got;
    return LAYOUT_RULES[fn as Layout](got) && got === this.layout[fn] ? [] : [`${fn}() returned ${got}`];
  }

  private restore(s: RestoreStep): string[] {
    const input = this.host.restoreInput(s);
    if (input.fresh) {
      this.module = instantiate();
      this.model = this.reference();
    }
    const got = guarded(() => restoreInto(this.module, input, s, this.host.now));
    const want = restoreInto(this.model, input, s, this.host.now);
    if (got !== want)
      return [`restore(${input.length}, ${this.host.now}, ...) returned ${got}, model ${want}`];
    const t = this.tally;
    if (got !== Result.OK) t.refused++;
    else if (input.fresh) t.restoredFresh++;
    else t.restoredInPlace++;
    if (got === Result.OK && (s.restore.flags & RestoreFlag.ATTEMPTS_LOST) !== 0) t.restoredLost++;
    return [];
  }
}

/** Runs `steps` in lockstep; the first divergence, or undefined. */
export function findDivergence(
  steps: readonly Step[],
  options: LockstepOptions = {},
): Divergence | undefined {
  const run = new Lockstep(options);
  for (let i = 0; i < steps.length; i++) {
    const differences = run.step(steps[i]);
    if (differences.length > 0) return { index: i, step: formatStep(steps[i]), differences };
  }
  return undefined;
}
