// A trial run of an uploaded module before it replaces the running one: in a worker
// thread, with a time limit, the new module takes up the running state (restore) and
// makes the calls of a few passes over a few seconds of ticks (poll, ended, nextDue,
// save). A module that traps there is refused with the trap's message; one that is still
// running when the limit passes (a loop) has its worker terminated and is refused. The
// device's own thread never runs a line of a module that has not passed.
import { Worker } from "node:worker_threads";
import { Image } from "tickretry";

/** How long the trial may take, ms: the real module needs well under one. */
export const TRIAL_LIMIT_MS = 2000;

// Plain JavaScript, run with eval in the worker: it imports nothing.
const TRIAL = `
const { parentPort, workerData: w } = require("node:worker_threads");
try {
  const e = new WebAssembly.Instance(new WebAssembly.Module(w.bytes), {}).exports;
  if (w.image.length <= w.areaBytes) new Uint8Array(e.memory.buffer, e.imageAddress(), w.image.length).set(w.image);
  e.restore(w.image.length, w.now, 0, 0);
  for (let pass = 0; pass < 10; pass++) {
    const tick = (w.now + pass * 1000) | 0;
    for (let i = 0; i < 64 && e.poll(tick) >= 0; i++);
    for (let i = 0; i < 64 && e.ended(tick) >= 0; i++);
    e.nextDue(tick);
    e.save(tick);
  }
  parentPort.postMessage("");
} catch (err) {
  parentPort.postMessage("it trapped in its trial run (" + err.message + ")");
}`;

/** undefined when the module passed its trial on `image`, else why it did not. */
export function trialRun(bytes: Buffer, image: Uint8Array, now: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const worker = new Worker(TRIAL, {
      eval: true,
      workerData: { bytes: new Uint8Array(bytes), image, now, areaBytes: Image.AREA_BYTES },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve(`it was still running after ${TRIAL_LIMIT_MS} ms of its trial run (a loop?)`);
    }, TRIAL_LIMIT_MS);
    worker.once("message", (why: string) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(why === "" ? undefined : why);
    });
    worker.once("error", (err) => {
      clearTimeout(timer);
      resolve(`its trial run failed (${err.message})`);
    });
  });
}
