// npm run soak -- [--calls N] [--seed S] [--episode E]
// Millions of random calls on host/library/build/tickretry.wasm and on the reference model in lockstep
// (test/assembly/soak/run.ts). Prints the seed first so a failure can be replayed; exits 1 with a
// shrunk counterexample on the first divergence.
import { parseArgs } from "node:util";
import { SingleBar, Presets } from "cli-progress";
import { Counter } from "../host/library/src/generated/abi.js";
import { runSoak } from "../test/assembly/soak/run.js";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "10000000" },
    seed: { type: "string" },
    episode: { type: "string", default: "0" },
  },
});
const calls = Number(values.calls);
const seed = values.seed === undefined ? (Math.random() * 2 ** 32) | 0 : Number(values.seed) | 0;
const firstEpisode = Number(values.episode);
if (!Number.isSafeInteger(calls) || calls <= 0 || !Number.isSafeInteger(firstEpisode) || firstEpisode < 0) {
  console.error("usage: npm run soak -- [--calls N] [--seed S] [--episode E]");
  process.exit(2);
}

console.log(`soak: ${calls} calls, seed ${seed} (replay: npm run soak -- --calls ${calls} --seed ${seed})`);
const bar = new SingleBar(
  {
    format: "{bar} {percentage}% | {value}/{total} calls | {rate} calls/s | ETA {eta_formatted}",
    etaBuffer: 50,
  },
  Presets.shades_classic,
);
const began = performance.now();
bar.start(calls, 0, { rate: 0 });
const result = runSoak({
  calls,
  seed,
  firstEpisode,
  progress: (n) => bar.update(n, { rate: Math.round(n / ((performance.now() - began) / 1000)) }),
});
bar.stop();
const seconds = (performance.now() - began) / 1000;
console.log(
  `${result.calls} calls in ${result.episodes} episodes, ${seconds.toFixed(1)} s, ` +
    `${Math.round(result.calls / seconds)} calls/s`,
);
const names = Object.keys(Counter).filter((k) => k !== "COUNT");
console.log(names.map((name, i) => `${name} ${result.counters[i]}`).join(", "));
const t = result.images;
console.log(
  `images: ${t.saves} saved; restored ${t.restoredFresh} into fresh instances, ${t.restoredInPlace} in place ` +
    `(${t.restoredLost} with ATTEMPTS_LOST), ${t.refused} refused; ${t.handedOut} ends handed out by ended()`,
);

const f = result.failure;
if (f === undefined) {
  console.log("no divergence between module and model");
} else {
  console.error(`\nDIVERGENCE in episode ${f.episode} (seed ${seed}); host clock starts at ${f.start}`);
  console.error(`replay: npm run soak -- --seed ${seed} --episode ${f.episode} --calls ${calls}`);
  if (!f.reproducedAlone)
    console.error("(not reproduced by the episode alone on a fresh instance: unshrunk)");
  console.error(
    `\n${f.steps.length} steps:\n  ${f.steps.join("\n  ")}\n\nthen:\n  ${f.differences.join("\n  ")}`,
  );
  process.exitCode = 1;
}
