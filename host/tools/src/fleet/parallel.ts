// The experiment's runs (strategies x seeds) on worker threads and this one, one run per
// task, so that both cores of a small machine work. Each run is a pure function of (settings, strategy,
// seed), and the rows are put back in strategy-major order, so the result is the
// single-threaded one exactly (test/host/tools/fleet/parallel.test.ts).
import { availableParallelism } from "node:os";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import {
  assemble,
  runExperiment,
  runOne,
  type ExperimentProgress,
  type ExperimentResult,
  type RunResult,
} from "./experiment.js";
import type { FleetSettings } from "./settings.js";
import type { Strategy } from "./strategies.js";

/** One run for a worker; `index` is its place among the experiment's runs. */
export interface Task {
  index: number;
  strategy: Strategy;
  seed: number;
  series: boolean;
}

/** An experiment for a worker: the settings, every task, and the shared word whose atomic
 * increment hands out the next one. */
export interface WorkerJob {
  settings: FleetSettings;
  tasks: Task[];
  next: Int32Array;
}

/** What a worker posts: the share of a run done so far, a run's result, or that no task is left. */
export type WorkerMessage =
  | { kind: "progress"; index: number; share: number }
  | { kind: "done"; index: number; result: RunResult }
  | { kind: "idle" };

/** Device-seconds of a table below which the default is one thread: there the start-up
 * of a process's first workers (loading, compiling, their JIT warming up beside this
 * thread) costs more than they save, and a CLI run has only that first table. Measured
 * with the CLI as whole processes, 5 seeds x 4 strategies of 30 s, two threads over one
 * (median of 5 or 6 interleaved pairs): 200 devices (120,000 device-seconds) 1.20, 500
 * devices 1.05, 1,000 devices 0.91, 2,000 devices 0.72. */
export const SMALL_TABLE_DEVICE_SECONDS = 500_000;

/** Threads by default: one per core, or one for a table of fewer device-seconds than
 * SMALL_TABLE_DEVICE_SECONDS. */
export function defaultThreads(deviceSeconds = Infinity): number {
  return deviceSeconds < SMALL_TABLE_DEVICE_SECONDS ? 1 : availableParallelism();
}

/** What a thread tells of a task: the share done so far, or (with its result) that it is done. */
export type TaskReport = (index: number, share: number, result?: RunResult) => void;

/** Runs tasks until none is left, each the next of the shared counter: every thread, this
 * one included, takes them so, and none waits for another to hand it work (a run of 200
 * devices takes 20 to 30 ms, about what answering a message waits while a thread runs
 * one). Between runs the thread's messages come in. */
export async function runTasks(job: WorkerJob, report: TaskReport): Promise<void> {
  const take = (): Task | undefined => job.tasks[Atomics.add(job.next, 0, 1)];
  for (let t = take(); t !== undefined; t = take()) {
    const index = t.index;
    const result = runOne(job.settings, t.strategy, t.seed, t.series, (share) => report(index, share));
    report(index, 1, result);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

// The worker next to this file: worker.js in dist/; worker.ts (tsx, vitest) through a
// bootstrap that registers tsx first, since a worker does not inherit the loader hooks.
function startWorker(): Worker {
  const self = fileURLToPath(import.meta.url);
  const url = new URL(`./worker${extname(self)}`, import.meta.url);
  if (extname(self) !== ".ts") return new Worker(url);
  const tsx = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  const boot = `import(${tsx}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(boot, { eval: true });
}

/** The workers started so far and not running an experiment, each with the timer that
 * ends it: kept for the process, so that only its first experiments pay a worker's
 * start-up (loading, compiling, its JIT warming up), and unref'd, so that they do not keep
 * it alive. */
const idle = new Map<Worker, NodeJS.Timeout>();

/** How long a worker is kept idle: enough for a process's next experiment, even with a
 * one-thread table of 2,000 devices (2 to 3 s) between the two, and no longer, since an
 * idle thread does not collect the garbage of its last fleet (at 100,000 devices some 270
 * MB). */
const IDLE_MS = 5000;

function setIdle(worker: Worker): void {
  worker.unref();
  idle.set(worker, setTimeout(() => void worker.terminate(), IDLE_MS).unref());
}

/** `count` workers for an experiment, idle ones first, ref'd while it runs. */
function takeWorkers(count: number): Worker[] {
  const taken = [...idle.keys()].slice(0, count);
  while (taken.length < count) {
    const worker = startWorker();
    worker.once("exit", () => idle.delete(worker));
    taken.push(worker);
  }
  for (const worker of taken) {
    clearTimeout(idle.get(worker));
    idle.delete(worker);
    worker.ref();
  }
  return taken;
}

/** The runs' results and progress as the threads report them. */
class Results {
  readonly results: RunResult[];
  private readonly shares: Float64Array;
  private done = 0;

  constructor(
    count: number,
    private readonly progress?: ExperimentProgress,
  ) {
    this.results = new Array(count);
    this.shares = new Float64Array(count);
  }

  get complete(): boolean {
    return this.done === this.results.length;
  }

  /** Task `index` is `share` done (1 with its result). */
  advance(index: number, share: number, result?: RunResult): void {
    this.shares[index] = share;
    if (result !== undefined) ((this.results[index] = result), this.done++);
    this.progress?.(
      this.shares.reduce((a, b) => a + b, 0),
      this.results.length,
    );
  }
}

/** Runs `job`'s tasks on `worker` too, collecting its reports until it has no task left;
 * then the worker is idle again. */
function runOn(worker: Worker, job: WorkerJob, results: Results): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onMessage = (m: WorkerMessage) => {
      if (m.kind === "progress") return results.advance(m.index, m.share);
      if (m.kind === "done") return results.advance(m.index, 1, m.result);
      stop();
      setIdle(worker);
      resolve();
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onExit = (code: number) => onError(new Error(`fleet: a worker thread exited with code ${code}`));
    const stop = () => {
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
    };
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    worker.postMessage(job);
  });
}

export async function runExperimentParallel(
  settings: FleetSettings,
  strategies: Strategy[],
  seeds: number[],
  threads: number,
  progress?: ExperimentProgress,
): Promise<ExperimentResult> {
  const tasks: Task[] = strategies.flatMap((strategy, i) =>
    seeds.map((seed, k) => ({ index: i * seeds.length + k, strategy, seed, series: k === 0 })),
  );
  if (threads <= 1 || tasks.length <= 1) return runExperiment(settings, strategies, seeds, progress);
  const job: WorkerJob = { settings, tasks, next: new Int32Array(new SharedArrayBuffer(4)) };
  const results = new Results(tasks.length, progress);
  const workers = takeWorkers(Math.min(threads, tasks.length) - 1).map((w) => runOn(w, job, results));
  // This thread runs tasks too: from the start, while new workers start up (much of a
  // small experiment's time), and then beside them.
  await Promise.all([
    ...workers,
    runTasks(job, (index, share, result) => results.advance(index, share, result)),
  ]);
  if (!results.complete) throw new Error("fleet: a run of the experiment has no result");
  return assemble(settings, strategies, seeds, results.results);
}
