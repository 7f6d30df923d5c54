// Independent runs (a fleet experiment's strategies x seeds, the contention experiment's
// runs) on worker threads and this one, one run per task, so that both cores of a small
// machine work. Each task's output is a pure function of the job's input and the task, and
// the outputs come back in task order, so the result is the single-threaded one exactly
// (test/host/tools/fleet/parallel.test.ts, test/host/tools/contention/parallel.test.ts).
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { runTask, type Input, type Kind, type Output, type Task } from "./runners.js";

/** A job for the threads: which runner, what its tasks share, every task, and the shared
 * word whose atomic increment hands out the next one. */
export interface Job<K extends Kind = Kind> {
  kind: K;
  input: Input<K>;
  tasks: Task<K>[];
  next: Int32Array;
}

/** What a worker posts: the share of a task done so far, a task's output, or that no task is left. */
export type WorkerMessage =
  | { kind: "progress"; index: number; share: number }
  | { kind: "done"; index: number; output: unknown }
  | { kind: "idle" };

/** What a thread tells of a task: the share done so far, or (with its output) that it is done. */
export type TaskReport = (index: number, share: number, output?: unknown) => void;

/** Called as tasks go on: the tasks done so far (shares of running ones included), of all. */
export type JobProgress = (done: number, total: number) => void;

/** Runs tasks until none is left, each the next of the shared counter: every thread, this
 * one included, takes them so, and none waits for another to hand it work (a run of 200
 * devices takes 20 to 30 ms, about what answering a message waits while a thread runs
 * one). Between tasks the thread's messages come in. */
export async function runTasks(job: Job, report: TaskReport): Promise<void> {
  for (let i = Atomics.add(job.next, 0, 1); i < job.tasks.length; i = Atomics.add(job.next, 0, 1)) {
    const index = i;
    const output = runTask(job.kind, job.input, job.tasks[index], (share) => report(index, share));
    report(index, 1, output);
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

/** The workers started so far and not running a job, each with the timer that ends it:
 * kept for the process, so that only its first jobs pay a worker's start-up (loading,
 * compiling, its JIT warming up), and unref'd, so that they do not keep it alive. */
const idle = new Map<Worker, NodeJS.Timeout>();

/** How long a worker is kept idle: enough for a process's next job, even with a
 * one-thread table of 2,000 devices (2 to 3 s) between the two, and no longer, since an
 * idle thread does not collect the garbage of its last fleet (at 100,000 devices some 270
 * MB). */
const IDLE_MS = 5000;

function setIdle(worker: Worker): void {
  worker.unref();
  idle.set(worker, setTimeout(() => void worker.terminate(), IDLE_MS).unref());
}

/** `count` workers for a job, idle ones first, ref'd while it runs. */
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

/** The tasks' outputs and progress as the threads report them. */
class Outputs {
  readonly outputs: unknown[];
  private readonly shares: Float64Array;
  /** The sum of `shares`, kept as they move: a job may have thousands of tasks. */
  private sum = 0;
  private done = 0;

  constructor(
    count: number,
    private readonly progress?: JobProgress,
  ) {
    this.outputs = new Array(count);
    this.shares = new Float64Array(count);
  }

  get complete(): boolean {
    return this.done === this.outputs.length;
  }

  /** Task `index` is `share` done (1 with its output). */
  advance(index: number, share: number, output?: unknown): void {
    this.sum += share - this.shares[index];
    this.shares[index] = share;
    if (output !== undefined) ((this.outputs[index] = output), this.done++);
    this.progress?.(this.done === this.outputs.length ? this.done : this.sum, this.outputs.length);
  }
}

/** Runs `job`'s tasks on `worker` too, collecting its reports until it has no task left;
 * then the worker is idle again. */
function runOn(worker: Worker, job: Job, outputs: Outputs): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onMessage = (m: WorkerMessage) => {
      if (m.kind === "progress") return outputs.advance(m.index, m.share);
      if (m.kind === "done") return outputs.advance(m.index, 1, m.output);
      stop();
      setIdle(worker);
      resolve();
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onExit = (code: number) => onError(new Error(`a worker thread exited with code ${code}`));
    const stop = () => {
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
    };
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    worker.postMessage(job);
  });
}

/** Every task's output, in task order, run on `threads` threads: this one (from the start,
 * while new workers start up, much of a small job's time) and threads - 1 kept workers. */
export async function runParallel<K extends Kind>(
  kind: K,
  input: Input<K>,
  tasks: Task<K>[],
  threads: number,
  progress?: JobProgress,
): Promise<Output<K>[]> {
  const job: Job<K> = { kind, input, tasks, next: new Int32Array(new SharedArrayBuffer(4)) };
  const outputs = new Outputs(tasks.length, progress);
  const workers = takeWorkers(Math.max(0, Math.min(threads, tasks.length) - 1));
  await Promise.all([
    ...workers.map((w) => runOn(w, job, outputs)),
    runTasks(job, (index, share, output) => outputs.advance(index, share, output)),
  ]);
  if (!outputs.complete) throw new Error(`${kind}: a task of the job has no output`);
  return outputs.outputs as Output<K>[];
}
