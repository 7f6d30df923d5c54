// A worker thread of parallel.ts: runs tasks from the shared counter it was started with
// until none is left, posting each run's progress and result, and then ends.
import { parentPort, workerData } from "node:worker_threads";
import { runTasks, type WorkerMessage, type WorkerStart } from "./parallel.js";

const post = (m: WorkerMessage) => parentPort!.postMessage(m);

void runTasks(workerData as WorkerStart, (index, share, result) =>
  post(result === undefined ? { kind: "progress", index, share } : { kind: "done", index, result }),
);
