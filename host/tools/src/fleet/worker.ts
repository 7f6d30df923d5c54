// A worker thread of parallel.ts: takes tasks from the shared counter it was started with
// until none is left, posting each run's progress and result, and then ends.
import { parentPort, workerData } from "node:worker_threads";
import { runOne } from "./experiment.js";
import { takeTask, type WorkerMessage, type WorkerStart } from "./parallel.js";

const start = workerData as WorkerStart;
const post = (m: WorkerMessage) => parentPort!.postMessage(m);

for (let t = takeTask(start); t !== undefined; t = takeTask(start)) {
  const index = t.index;
  const result = runOne(start.settings, t.strategy, t.seed, t.series, (share) =>
    post({ kind: "progress", index, share }),
  );
  post({ kind: "done", index, result });
}
