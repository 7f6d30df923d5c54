// A worker thread of pool.ts, kept for the process: for each job it is sent, it runs tasks
// from the shared counter until none is left, posting each task's progress and output,
// and then that it is idle.
import { parentPort } from "node:worker_threads";
import { runTasks, type Job, type WorkerMessage } from "./pool.js";

const post = (m: WorkerMessage) => parentPort!.postMessage(m);

parentPort!.on("message", (job: Job) => {
  void runTasks(job, (index, share, output) =>
    post(output === undefined ? { kind: "progress", index, share } : { kind: "done", index, output }),
  ).then(() => post({ kind: "idle" }));
});
