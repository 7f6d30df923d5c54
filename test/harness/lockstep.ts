// Runs a scenario on the module and on the model side by side and stops at the first
// step where any return value or any observable state differs.
import { instantiate } from "../../host/tickretry.js";
import { SchedulerModel } from "../model/scheduler.js";
import { formatStep, Host, invoke, type Step, type Target } from "./calls.js";
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

export class Lockstep {
  readonly module = instantiate();
  readonly model: Target;
  host: Host;
  private calls = 0;
  private readonly every: number;
  private readonly limit: number;

  constructor(options: LockstepOptions = {}) {
    this.host = new Host(options.start ?? 0);
    this.model = options.reference?.() ?? new SchedulerModel();
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
    const args = this.host.resolve(s.args, this.model);
    const got = invoke(this.module, s.fn, args);
    const want = invoke(this.model, s.fn, args);
    this.host.saw(s, want);
    const diffs = got === want ? [] : [`${s.fn}(${args.join(", ")}) returned ${got}, model ${want}`];
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
