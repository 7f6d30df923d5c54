// A worker thread of parallel.ts, kept for the process: for each experiment it is sent, it
// runs tasks from the shared counter until none is left, posting each run's progress and
// result, and then that it is idle.
import { parentPort } from "node:worker_threads";
import { runTasks, type WorkerMessage, type WorkerJob } from "./parallel.js";

const post = (m: WorkerMessage) => parentPort!.postMessage(m);

parentPort!.on("message", (job: WorkerJob) => {
  void runTasks(job, (index, share, result) =>
    post(result === undefined ? { kind: "progress", index, share } : { kind: "done", index, result }),
  ).then(() => post({ kind: "idle" }));
});
