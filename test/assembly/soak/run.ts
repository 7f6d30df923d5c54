// The soak: millions of random calls on one module instance and the model in lockstep,
// episode after episode (each opens with init, so one instance also proves init wipes
// everything). On the first divergence the failing episode is replayed on a fresh pair
// and shrunk to a short counterexample.
import { Counter } from "../../../host/library/src/generated/abi.js";
import { formatStep, type Step, type Target } from "../harness/calls.js";
import { findDivergence, Lockstep, type ImageTally } from "../harness/lockstep.js";
import { episode, type Episode } from "./episodes.js";
import { shrink } from "./shrink.js";

export interface SoakOptions {
  calls: number;
  seed: number;
  /** First episode (to replay a failure without the episodes before it). */
  firstEpisode?: number;
  /** Called now and then with the calls made so far. */
  progress?: (calls: number) => void;
  /** The reference run beside the module (default: the model). */
  reference?: () => Target;
}

export interface SoakFailure {
  episode: number;
  start: number;
  /** The shrunk steps, one line each, and what differed after the last one. */
  steps: string[];
  differences: string[];
  /** False when the episode alone, on a fresh instance, does not diverge (state survived init). */
  reproducedAlone: boolean;
}

export interface SoakResult {
  calls: number;
  episodes: number;
  /** Module counter increments summed over the episodes: what the soak exercised. */
  counters: number[];
  /** Saves, restores and ends handed out. */
  images: ImageTally;
  failure?: SoakFailure;
}

// Full snapshots are dear (nine queries per handle): every 16th call, of the 16 most recent
// handles; return values and anything the next snapshot sees are still compared.
const SOAK_COMPARE = { snapshotEvery: 16, handleLimit: 16 };
const SHRINK_COMPARE = { snapshotEvery: 1, handleLimit: 64 };

/**
 * Counter increments the calls made, summed: init and restore set counters to other values
 * (a restored image's, forged ones any u32), so only the progress between them counts.
 */
class Exercised {
  readonly totals = new Array<number>(Counter.COUNT).fill(0);
  private base: number[] = [];

  constructor(private readonly run: Lockstep) {
    this.rebase();
  }

  private read(): number[] {
    return Array.from({ length: Counter.COUNT }, (_, c) => Math.max(0, this.run.module.counter(c)));
  }

  /** Adds the progress since the last jump (counters are read modulo 2^31). */
  settle(): void {
    this.read().forEach((v, c) => (this.totals[c] += (v - this.base[c] + 2 ** 31) % 2 ** 31));
  }

  rebase(): void {
    this.base = this.read();
  }
}

/** Steps that set counters rather than count. */
const jumps = (step: Step) => "restore" in step || ("fn" in step && step.fn === "init");

export function runSoak(options: SoakOptions): SoakResult {
  const run = new Lockstep({ ...SOAK_COMPARE, reference: options.reference });
  const exercised = new Exercised(run);
  const counters = exercised.totals;
  let calls = 0;
  let index = options.firstEpisode ?? 0;
  let lastReport = 0;
  for (; calls < options.calls; index++) {
    const ep = episode(options.seed, index);
    run.restart(ep.start);
    for (let i = 0; i < ep.steps.length && calls < options.calls; i++) {
      const step = ep.steps[i];
      if (!("tick" in step)) calls++;
      if (jumps(step)) exercised.settle();
      const differences = run.step(step);
      if (jumps(step) && differences.length === 0) exercised.rebase();
      if (differences.length > 0) {
        const failure = explain(ep, i + 1, differences, options.reference);
        return { calls, episodes: index + 1, counters, images: run.tally, failure };
      }
      if (calls - lastReport >= 10_000) {
        options.progress?.(calls);
        lastReport = calls;
      }
    }
  }
  exercised.settle();
  options.progress?.(calls);
  return {
    calls,
    episodes: index - (options.firstEpisode ?? 0),
    counters,
    images: run.tally,
  };
}

/** What kind of difference a line names, without its numbers: shrinking keeps to one kind. */
const kind = (difference: string) => difference.replace(/[-\d, ]+/g, "").replace(/:.*|returned.*/, "");

/** Replays the episode's first `length` steps on a fresh pair and shrinks them. */
function explain(
  ep: Episode,
  length: number,
  differences: string[],
  reference: SoakOptions["reference"],
): SoakFailure {
  const steps = ep.steps.slice(0, length);
  const compare = { ...SHRINK_COMPARE, start: ep.start, reference };
  const divergence = (s: readonly Step[]) => findDivergence(s, compare);
  const target = divergence(steps);
  const fails = (s: readonly Step[]) => {
    const d = divergence(s);
    return d !== undefined && kind(d.differences[0]) === kind(target!.differences[0]) ? d.index : undefined;
  };
  if (target === undefined) {
    return {
      episode: ep.index,
      start: ep.start,
      steps: steps.map(formatStep),
      differences,
      reproducedAlone: false,
    };
  }
  const small = shrink(steps, fails, 1);
  const last = divergence(small)!;
  return {
    episode: ep.index,
    start: ep.start,
    steps: small.map(formatStep),
    differences: last.differences,
    reproducedAlone: true,
  };
}
