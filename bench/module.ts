// The module's own figures: size, the memory its state occupies, and what a call costs
// under V8 against the floor of crossing the JS-to-wasm boundary at all.
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Counter, Outcome } from "../host/library/src/generated/abi.js";
import { measureFootprint } from "../test/fixtures/footprint.js";
import { saveImage } from "../host/library/src/image.js";
import { configure, type PolicyFields } from "../host/library/src/policy.js";
import { WASM_PATH, create, type TickRetryApi } from "../host/library/src/tickretry.js";

const ROUNDS = 7;
const CALLS = 1_000_000;

/** Median over ROUNDS of the ns per call one run of `run` reports (after one warm-up run). */
function medianNs(run: () => number): number {
  run(); // warm-up: let V8 tier the wrapper and the wasm up
  const samples = Array.from({ length: ROUNDS }, run).sort((a, b) => a - b);
  return samples[ROUNDS >> 1];
}

const elapsedNs = (start: bigint) => Number(process.hrtime.bigint() - start);

// Each figure has its own loop, written out: one loop shared through a callback would
// make its call site polymorphic and slow down whichever figure is measured later.

function noopCallNs(api: TickRetryApi): number {
  return medianNs(() => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) api.abiVersion();
    return elapsedNs(start) / CALLS;
  });
}

/** The bench's tick: it only moves on, so no poll ever sees the clock step back. */
const clock = { now: 0 };

/** ns per idle poll; throws if a poll found work (the figure would not be idle). */
function idlePollNs(api: TickRetryApi): number {
  const started = api.counter(Counter.ATTEMPTS_STARTED);
  const ns = medianNs(() => {
    const first = clock.now;
    const start = process.hrtime.bigint();
    for (let i = 1; i <= CALLS; i++) api.poll(first + i);
    clock.now = first + CALLS;
    return elapsedNs(start) / CALLS;
  });
  if (api.counter(Counter.ATTEMPTS_STARTED) !== started) throw new Error("bench: an idle poll found work");
  return ns;
}

/** Adds `count` operations whose retries are WAIT ticks off: polls will find nothing due. */
function addWaiting(api: TickRetryApi, count: number): void {
  for (let i = 0; i < count; i++) {
    const h = api.begin(0, clock.now);
    api.poll(clock.now);
    api.report(h, api.attempt(h), Outcome.TRANSIENT, 0, clock.now);
  }
}

/** Far beyond the idle loops' 2 x 8 x CALLS ticks, and below MAX_SPAN. */
const WAIT = 2_000_000_000;

/** Many attempts that never time out in a run, waits of WAIT, no jitter. */
const BENCH_POLICY: PolicyFields = {
  maxAttempts: 255,
  attemptTimeout: 1_000_000,
  baseDelay: WAIT,
  maxDelay: WAIT,
  throttleBaseDelay: 0,
  deadline: 0,
  jitter: "NONE",
  idempotent: false,
};

/** ns per report that schedules a retry, timed in batches of 16 (one per operation). */
function reportRetryNs(): number {
  const api = create(42n);
  configure(api, "reportRetryNs", 0, { ...BENCH_POLICY, baseDelay: 0, maxDelay: 0 }); // every retry due at once
  let ops: number[] = [];
  const renew = () => {
    for (const h of ops) (api.cancel(h, 0), api.release(h));
    ops = Array.from({ length: 16 }, () => api.begin(0, 0));
  };
  renew();
  const attempts = new Int32Array(16);
  const batches = 20_000;
  return medianNs(() => {
    let spent = 0n;
    for (let b = 0; b < batches; b++) {
      // poll starts the operations in slot order, which is the order they were begun in.
      for (let i = 0; i < 16; i++) attempts[i] = api.attempt(api.poll(0));
      const start = process.hrtime.bigint();
      for (let i = 0; i < 16; i++) api.report(ops[i], attempts[i], Outcome.TRANSIENT, 0, 0);
      spent += BigInt(elapsedNs(start));
      if (attempts[0] >= 250) renew();
    }
    return Number(spent) / (batches * 16);
  });
}

/** The largest functions of the binary, by code size (wasm-objdump). */
function largestExports(count: number): { name: string; bytes: number }[] {
  const details = execFileSync("wasm-objdump", ["-x", "-j", "Code", WASM_PATH], { encoding: "utf8" });
  return [...details.matchAll(/func\[\d+\] size=(\d+) <([^>]+)>/g)]
    .map((m) => ({ name: m[2], bytes: Number(m[1]) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

/** The length of the image of `operations` operations in flight over `policies` policies. */
function imageBytes(operations: number, policies: number): number {
  const api = create(9n);
  const policy: PolicyFields = {
    maxAttempts: 5,
    attemptTimeout: 3000,
    baseDelay: 200,
    maxDelay: 8000,
    throttleBaseDelay: 1000,
    deadline: 60_000,
    jitter: "FULL",
    idempotent: false,
  };
  for (let id = 0; id < policies; id++) configure(api, "imageBytes", id, policy);
  const now = 0xffff_f000;
  for (let i = 0; i < operations; i++) api.begin(i % policies, now);
  while (api.poll(now) >= 0);
  const image = saveImage(api, now + 1);
  if (typeof image === "number") throw new Error(`bench: save refused (${image})`);
  return image.length;
}

export interface ModuleFigures {
  wasmBytes: number;
  /** Image length, 1 operation and 1 policy. */
  imageBytes1: number;
  /** Image length, 16 operations and 8 policies. */
  imageBytes16: number;
  memoryBytes: number;
  highestByte: number;
  noopCallNs: number;
  idlePollNs: number;
  idlePoll16Ns: number;
  reportRetryNs: number;
  largestExports: { name: string; bytes: number }[];
}

/** Measures the module under V8; `progress` hears which figure is being measured. */
export function measureModule(progress: (what: string) => void = () => {}): ModuleFigures {
  progress("size and memory");
  const footprint = measureFootprint();
  // One instance for the three figures, so that every loop calls the same functions.
  const api = create(42n);
  configure(api, "measureModule", 0, BENCH_POLICY);
  progress("call-boundary floor");
  const noopNs = noopCallNs(api);
  progress("idle poll, 1 waiting");
  addWaiting(api, 1);
  const idleNs = idlePollNs(api);
  progress("idle poll, 16 waiting");
  addWaiting(api, 15);
  const idle16Ns = idlePollNs(api);
  progress("report that schedules a retry");
  return {
    wasmBytes: statSync(WASM_PATH).size,
    imageBytes1: imageBytes(1, 1),
    imageBytes16: imageBytes(16, 8),
    memoryBytes: footprint.stateBytes,
    highestByte: footprint.highestByte,
    noopCallNs: noopNs,
    idlePollNs: idleNs,
    idlePoll16Ns: idle16Ns,
    reportRetryNs: reportRetryNs(),
    largestExports: largestExports(5),
  };
}

// Run alone (bench/index.ts does, under a V8 flag), it prints its figures as JSON.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(measureModule()));
}
