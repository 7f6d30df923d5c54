// bench:device: how the setup page and the main loop fare while the device retries.
// Runs the simulated device (`tickretry device`) in a child process, so the bench's own
// requests load the device the way a browser would and never share its event loop. Two
// phases: a healthy upstream, then an outage (503 to everything) with retries; in each,
// a client asks for the page and its status every 25 ms on one kept-alive connection (as a
// browser polls) and times the answers, and the device reports its largest gap between
// main-loop passes. The goals are absolute: p99 at most 5 ms idle, 1.5 times that in the outage.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Agent, request } from "node:http";
import cliProgress from "cli-progress";
import { benchMqtt, formatMqttTable, type MqttBench } from "./device-mqtt.js";
import type { PhaseFigures } from "./phase-figures.js";

export interface DeviceBench {
  healthy: PhaseFigures;
  outage: PhaseFigures;
  /** The same over MQTT (device-mqtt.ts): a healthy mosquitto, then the broker down. */
  mqtt: MqttBench;
}

export interface BenchOptions {
  /** Length of each phase, s (default 30). */
  seconds?: number;
  /** Called about every 250 ms: the phase, and the fraction of the whole run done. */
  onProgress?: (phase: string, fraction: number) => void;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WARMUP_MS = 3000;
const PAGE_EVERY_MS = 25;
/** The device's load: an upload every 250 ms, no budget, so retries last the whole outage. */
const DEVICE_ARGS = [
  "--port",
  "0",
  "--quiet",
  "--scenario",
  "healthy",
  "--upload-every",
  "250",
  "--budget",
  "off",
];

/** An empty 5 ms loop in its own process for `ms`; `result` is its largest gap. */
function baselineGap(ms: number): { result: Promise<number>; stop: () => void } {
  const script = `let last = performance.now(), max = 0; const end = last + ${ms};
    (function pass() { const t = performance.now(); max = Math.max(max, t - last); last = t;
      if (t < end) setTimeout(pass, 5); else console.log(max); })();`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk));
  const result = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(Number(out)) : reject(new Error(`baseline loop: ${code}`)),
    );
  });
  // A phase that fails stops the loop; its result is then of no interest.
  const stop = () => {
    result.catch(() => {});
    child.kill("SIGTERM");
  };
  return { result, stop };
}

function startDevice(args = DEVICE_ARGS): Promise<{ child: ChildProcess; url: string }> {
  // A state file of its own: the device writes it as it would on a board, and no state
  // from another run comes back.
  const state = join(mkdtempSync(join(tmpdir(), "bench-device-")), "state.json");
  const child = spawn(
    process.execPath,
    ["host/tools/bin/tickretry.js", "device", ...args, "--state", state],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk;
      const m = /setup page (http:\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      reject(new Error(`tickretry device exited (${code}) before serving:\n${out}`)),
    );
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const round = (ms: number) => Math.round(ms * 100) / 100;

async function status(url: string): Promise<{
  loop: { maxGapMs: number; p99GapMs: number };
  store: { maxWriteMs: number };
  counters: Record<string, number>;
}> {
  return (await fetch(new URL("/status.json", url))).json();
}

/** The device password the bench sets at first setup and sends with every change. */
const DEVICE_PASSWORD = "bench device password";

async function postForm(url: string, path: string, fields: Record<string, string>): Promise<void> {
  const res = await fetch(new URL(path, url), {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "x-device-password": DEVICE_PASSWORD },
  });
  if (res.status !== 200) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
}

/** One GET on `agent`'s kept-alive socket, read to its end. */
function get(url: URL, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 200 ? resolve() : reject(new Error(`${url.pathname}: HTTP ${res.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Times page and status requests for `ms`, alternating, on one kept-alive connection as a
 * browser's: every answer's time, ms, by what was asked.
 */
async function timePage(url: string, ms: number, tick: (elapsed: number) => void) {
  const times = { page: [] as number[], status: [] as number[] };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const start = performance.now();
  try {
    for (let i = 0; performance.now() - start < ms; i++) {
      const t0 = performance.now();
      await get(new URL(i % 2 ? "/status.json" : "/", url), agent);
      const t1 = performance.now();
      (i % 2 ? times.status : times.page).push(t1 - t0);
      tick(t1 - start);
      await new Promise((r) => setTimeout(r, Math.max(0, PAGE_EVERY_MS - (t1 - t0))));
    }
  } finally {
    agent.destroy();
  }
  return { page: times.page.sort((a, b) => a - b), status: times.status.sort((a, b) => a - b) };
}

/** One phase: the page and status timed for `phaseMs`, the loop's gaps, the retries, the empty loop's gap. */
async function measure(url: string, phaseMs: number, tick: (elapsed: number) => void): Promise<PhaseFigures> {
  await postForm(url, "/loop/reset", {});
  const before = await status(url);
  const baseline = baselineGap(phaseMs);
  let both;
  try {
    both = await timePage(url, phaseMs, tick);
  } catch (err) {
    baseline.stop();
    throw err;
  }
  const after = await status(url);
  const times = [...both.page, ...both.status].sort((a, b) => a - b);
  return {
    statusP99Ms: round(percentile(both.status, 99)),
    onlyPageP99Ms: round(percentile(both.page, 99)),
    pageP50Ms: round(percentile(times, 50)),
    pageP99Ms: round(percentile(times, 99)),
    pageMaxMs: round(times[times.length - 1]),
    loopMaxGapMs: round(after.loop.maxGapMs),
    loopP99GapMs: after.loop.p99GapMs,
    maxWriteMs: round(after.store.maxWriteMs),
    samples: times.length,
    retries: after.counters.RETRIES_SCHEDULED - before.counters.RETRIES_SCHEDULED,
    baselineMaxGapMs: round(await baseline.result),
  };
}

/** Runs both phases and returns their figures. */
async function benchDevice(options: BenchOptions = {}): Promise<DeviceBench> {
  const phaseMs = (options.seconds ?? 30) * 1000;
  const total = 2 * (WARMUP_MS + 2 * phaseMs);
  const progress = (phase: string, done: number) => options.onProgress?.(phase, Math.min(1, done / total));
  const { child, url } = await startDevice();
  try {
    await postForm(url, "/password", { password: DEVICE_PASSWORD });
    await timePage(url, WARMUP_MS, (e) => progress("warm-up", e));
    const phase = async (name: "healthy" | "outage", offset: number): Promise<PhaseFigures> => {
      await postForm(url, "/fault/scenario", { scenario: name });
      return measure(url, phaseMs, (e) => progress(name, offset + e));
    };
    const healthy = await phase("healthy", WARMUP_MS);
    const outage = await phase("outage", WARMUP_MS + phaseMs);
    child.kill("SIGTERM");
    const half = WARMUP_MS + 2 * phaseMs;
    const tools = { startDevice, postForm, timePage, measure, password: DEVICE_PASSWORD };
    const mqtt = await benchMqtt(phaseMs, WARMUP_MS, (name, e) => progress(name, half + e), tools);
    return { healthy, outage, mqtt };
  } finally {
    child.kill("SIGTERM");
  }
}

/** The absolute goals on loopback, for a kept-alive connection: idle (healthy) and in the outage. */
export const IDLE_P99_GOAL_MS = 5;
export const OUTAGE_P99_GOAL_MS = 1.5 * IDLE_P99_GOAL_MS;

export function goals(b: DeviceBench): { what: string; ms: number; goalMs: number; met: boolean }[] {
  return [
    ["page p99, idle", b.healthy.onlyPageP99Ms, IDLE_P99_GOAL_MS],
    ["status p99, idle", b.healthy.statusP99Ms, IDLE_P99_GOAL_MS],
    ["page p99, outage", b.outage.onlyPageP99Ms, OUTAGE_P99_GOAL_MS],
    ["status p99, outage", b.outage.statusP99Ms, OUTAGE_P99_GOAL_MS],
  ].map(([what, ms, goalMs]) => ({
    what: what as string,
    ms: ms as number,
    goalMs: goalMs as number,
    met: ms <= goalMs,
  }));
}

export function formatTable(b: DeviceBench): string {
  const rows: [string, keyof PhaseFigures][] = [
    ["status p99 (ms)", "statusP99Ms"],
    ["page alone p99 (ms)", "onlyPageP99Ms"],
    ["page p50 (ms)", "pageP50Ms"],
    ["page p99 (ms)", "pageP99Ms"],
    ["page max (ms)", "pageMaxMs"],
    ["loop max gap (ms)", "loopMaxGapMs"],
    ["loop p99 gap (ms)", "loopP99GapMs"],
    ["write max so far (ms)", "maxWriteMs"],
    ["page requests", "samples"],
    ["retries scheduled", "retries"],
    ["empty loop max gap (ms)", "baselineMaxGapMs"],
  ];
  const line = (a: string, h: string, o: string) => `${a.padEnd(24)} ${h.padStart(10)} ${o.padStart(10)}`;
  return [
    line("", "healthy", "outage"),
    ...rows.map(([label, key]) => line(label, String(b.healthy[key]), String(b.outage[key]))),
    "",
    ...goals(b).map(
      (g) => `${g.what}: ${g.ms} ms (goal: at most ${g.goalMs} ms) ${g.met ? "met" : "MISSED"}`,
    ),
    `outage p99 / healthy p99: ${(b.outage.pageP99Ms / b.healthy.pageP99Ms).toFixed(2)} (goal: at most 1.5)`,
    `loop max gap: ${Math.max(b.healthy.loopMaxGapMs, b.outage.loopMaxGapMs)} ms (goal: below 20 ms)`,
    "",
    formatMqttTable(b.mqtt),
  ].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: "boolean" },
      seconds: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log("usage: npm run bench:device -- [--json] [--seconds N (per phase, default 30)]");
    return;
  }
  const seconds = values.seconds === undefined ? 30 : Number(values.seconds);
  if (!(seconds > 0)) throw new Error(`--seconds wants a positive number, got ${values.seconds}`);
  const bar = new cliProgress.SingleBar(
    {
      format: "bench:device [{bar}] {percentage}% {phase}",
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 5000,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(100, 0, { phase: "starting" });
  const result = await benchDevice({
    seconds,
    onProgress: (phase, fraction) => bar.update(Math.round(fraction * 100), { phase }),
  });
  bar.update(100, { phase: "done" });
  bar.stop();
  console.log(values.json ? JSON.stringify(result, null, 2) : formatTable(result));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(`bench:device: ${err.message}`);
    process.exitCode = 1;
  });
}
