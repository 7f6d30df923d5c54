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

/** What a worker posts: the share of a run done so far, or the run's result. */
export type WorkerMessage =
  { kind: "progress"; index: number; share: number } | { kind: "done"; index: number; result: RunResult };

/** Threads by default: one per core. */
export const defaultThreads = () => availableParallelism();

// The worker next to this file: worker.js in dist/; worker.ts (tsx, vitest) through a
// bootstrap that registers tsx first, since a worker does not inherit the loader hooks.
function startWorker(settings: FleetSettings): Worker {
  const self = fileURLToPath(import.meta.url);
  const url = new URL(`./worker${extname(self)}`, import.meta.url);
  if (extname(self) !== ".ts") return new Worker(url, { workerData: settings });
  const tsx = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  const boot = `import(${tsx}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(boot, { eval: true, workerData: settings });
}

/** The experiment's tasks as the threads take them, and what they have done so far. */
class Tasks {
  private next = 0;
  readonly results: RunResult[];
  private readonly shares: Float64Array;

  constructor(
    private readonly tasks: Task[],
    private readonly progress?: ExperimentProgress,
  ) {
    this.results = new Array(tasks.length);
    this.shares = new Float64Array(tasks.length);
  }

  /** How many are not yet taken. */
  get left(): number {
    return this.tasks.length - this.next;
  }

  /** The next task, or undefined when every one is taken. */
  take(): Task | undefined {
    return this.next < this.tasks.length ? this.tasks[this.next++] : undefined;
  }

  /** Task `index` is `share` done (1 with its result). */
  advance(index: number, share: number, result?: RunResult): void {
    this.shares[index] = share;
    if (result !== undefined) this.results[index] = result;
    this.progress?.(
      this.shares.reduce((a, b) => a + b, 0),
      this.tasks.length,
    );
  }
}

/** Gives `worker` tasks until none is left, then ends it. While there are tasks enough for
 * every thread, a second one waits in its queue, so that it does not idle while this
 * thread, busy with a run of its own, cannot answer its "done" at once. */
function serve(worker: Worker, tasks: Tasks, threads: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let inFlight = 0;
    const give = () => {
      const task = tasks.take();
      if (task !== undefined) {
        inFlight++;
        worker.postMessage(task);
      } else if (inFlight === 0) void worker.terminate().then(() => resolve());
    };
    worker.on("message", (m: WorkerMessage) => {
      if (m.kind === "progress") return tasks.advance(m.index, m.share);
      inFlight--;
      tasks.advance(m.index, 1, m.result);
      give();
    });
    worker.on("error", reject);
    worker.on("exit", (code) => {
      if (inFlight > 0)
        reject(new Error(`fleet: a worker thread exited with code ${code} before its run ended`));
    });
    give();
    if (tasks.left >= threads) give();
  });
}

/** Runs tasks on this thread too: from the start, while the workers start up (much of a
 * small experiment's time), and then beside them. */
async function runHere(settings: FleetSettings, tasks: Tasks): Promise<void> {
  for (let t = tasks.take(); t !== undefined; t = tasks.take()) {
    const index = t.index;
    tasks.advance(
      index,
      1,
      runOne(settings, t.strategy, t.seed, t.series, (share) => tasks.advance(index, share)),
    );
    await new Promise((resolve) => setImmediate(resolve)); // the workers' messages
  }
}

export async function runExperimentParallel(
  settings: FleetSettings,
  strategies: Strategy[],
  seeds: number[],
  threads: number,
  progress?: ExperimentProgress,
): Promise<ExperimentResult> {
  const list: Task[] = strategies.flatMap((strategy, i) =>
    seeds.map((seed, k) => ({ index: i * seeds.length + k, strategy, seed, series: k === 0 })),
  );
  if (threads <= 1 || list.length <= 1) return runExperiment(settings, strategies, seeds, progress);
  const tasks = new Tasks(list, progress);
  const workers = Array.from({ length: Math.min(threads, list.length) - 1 }, () => startWorker(settings));
  try {
    await Promise.all([...workers.map((w) => serve(w, tasks, threads)), runHere(settings, tasks)]);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return assemble(settings, strategies, seeds, tasks.results);
}
