import { instantiate } from "../../host/library/src/tickretry.js";
import { SchedulerModel } from "../assembly/model/scheduler.js";
import { encodeFields } from "../assembly/model/image.js";
import { writeImage } from "../assembly/harness/images.js";
import { readFileSync } from "node:fs";
const fields = JSON.parse(process.argv[2]);
const now = Number(process.argv[3]) >>> 0;
const wasm = readFileSync(new URL("../../host/library/build/tickretry.wasm", import.meta.url));
const mod = instantiate(new WebAssembly.Module(wasm));
const model = new SchedulerModel();
for (const t of [mod, model] as any[]) {
  t.init(0, -1122296173);
  const bytes = encodeFields(fields);
  writeImage(t, bytes);
  console.log("restore", t.restore(bytes.length, now, 2147483647, 1));
  for (let s = 0; s < 16; s++) {
    for (let g = 1; g < 70000; g++) {
      const hh = (g << 4) | s;
      if (t.state(hh) >= 0) {
        console.log(
          s,
          t.state(hh),
          t.opFlags(hh),
          t.nextAttemptAt(hh),
          t.attempt(hh),
          t.backoffLevel(hh),
          t.lastOutcome(hh),
          t.endReason(hh),
        );
        break;
      }
    }
  }
  for (let p = 0; p < 8; p++) console.log("pol", p, t.breakerState(p), t.breakEnds(p));
  const h = t.begin(3, now);
  console.log("begin", h, t.nextAttemptAt(h), t.opFlags(h));
  const n = t.save(now);
  console.log("save", n, Buffer.from(new Uint8Array(t.memory.buffer, t.imageAddress(), n)).toString("hex"));
}
