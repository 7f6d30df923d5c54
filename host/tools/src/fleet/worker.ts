// A worker thread of parallel.ts: runs the tasks it is sent, one at a time, in the
// settings it was started with, and posts each run's progress and result.
import { parentPort, workerData } from "node:worker_threads";
import { runOne } from "./experiment.js";
import type { Task, WorkerMessage } from "./parallel.js";
import type { FleetSettings } from "./settings.js";

const settings = workerData as FleetSettings;
const port = parentPort!;
const post = (m: WorkerMessage) => port.postMessage(m);

port.on("message", (t: Task) => {
  const result = runOne(settings, t.strategy, t.seed, t.series, (share) =>
    post({ kind: "progress", index: t.index, share }),
  );
  post({ kind: "done", index: t.index, result });
});
