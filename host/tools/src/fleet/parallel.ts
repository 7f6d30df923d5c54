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
  const results: RunResult[] = new Array(tasks.length);
  const shares = new Float64Array(tasks.length);
  const report = () =>
    progress?.(
      shares.reduce((a, b) => a + b, 0),
      tasks.length,
    );
  let next = 0;
  const finish = (index: number, result: RunResult) => {
    results[index] = result;
    shares[index] = 1;
    report();
  };
  const serve = (worker: Worker) =>
    new Promise<void>((resolve, reject) => {
      let inFlight = 0;
      const give = () => {
        if (next < tasks.length) {
          inFlight++;
          worker.postMessage(tasks[next++]);
        } else if (inFlight === 0) void worker.terminate().then(() => resolve());
      };
      worker.on("message", (m: WorkerMessage) => {
        if (m.kind === "progress") {
          shares[m.index] = m.share;
          return report();
        }
        inFlight--;
        finish(m.index, m.result);
        give();
      });
      worker.on("error", reject);
      worker.on("exit", (code) => {
        if (inFlight > 0)
          reject(new Error(`fleet: a worker thread exited with code ${code} before its run ended`));
      });
      // While there are tasks enough for every thread, a second one waits in the worker's
      // queue, so that it does not idle while this thread, busy with a run of its own,
      // cannot answer its "done" at once.
      give();
      if (tasks.length - next >= threads) give();
    });
  // This thread runs tasks too: from the start, while the workers start up (much of a
  // small experiment's time), and then beside them.
  const runHere = async () => {
    while (next < tasks.length) {
      const t = tasks[next++];
      finish(
        t.index,
        runOne(settings, t.strategy, t.seed, t.series, (share) => ((shares[t.index] = share), report())),
      );
      await new Promise((resolve) => setImmediate(resolve)); // the workers' messages
    }
  };
  const workers = Array.from({ length: Math.min(threads, tasks.length) - 1 }, () => startWorker(settings));
  try {
    await Promise.all([...workers.map(serve), runHere()]);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return assemble(settings, strategies, seeds, results);
}
