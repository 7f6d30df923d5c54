// The device chaos run: the upstream in a process of its own (it outlives every kill and
// keeps its dedup store), the device in another, killed with SIGKILL at seeded random
// moments and started again each time from its state file, first against the outage
// scenario, then the flaky one. The last device runs with no new readings until every
// reading it owes has ended, and stops. Then the readings log and the upstream's store
// are tallied: every reading begun must be stored exactly once or ended with a reason.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Rng } from "../random.js";
import { CRASH_POINTS } from "../device/app/kept.js";
import { readLog } from "../device/app/readings.js";
import { readStateFile } from "../device/app/kept.js";
import type { DeviceStatus } from "../device/app/status.js";
import { exitWithin, startTickretry, stop, type Child } from "./processes.js";
import { httpSink, mqttSink, type Sink } from "./sinks.js";
import { tally, type TallyResult } from "./tally.js";

export interface ChaosOptions {
  kills: number;
  seed: number;
  /** Multiplies the upload policy's spans (default 0.5: 1 s attempts, a 15 s deadline). */
  scale?: number;
  /** A reading every this many ms (default 50: in the outage the 16 slots fill, the queue works). */
  uploadEveryMs?: number;
  /** Each kill comes up to this many ms after the device started serving (default 1500). */
  maxKillMs?: number;
  /** How long the last device may take to end every reading it owes, ms (default 120000). */
  settleMs?: number;
  /** Where the state file and the readings log go (default: a new temporary directory). */
  dir?: string;
  /**
   * Then, in the flaky scenario, one more kill in each narrow window (device/app/kept.ts, CRASH_POINTS): the
   * device kills itself there, the nth time it gets there, n seeded from 1 to 20.
   */
  windows?: boolean;
  /** One line per step, for people. */
  onProgress?: (line: string) => void;
  /** Upload over MQTT through a mosquitto the run restarts (default http). */
  transport?: "http" | "mqtt";
  /** With mqtt: broker restarts at seeded moments of the device lives (default 0). */
  brokerRestarts?: number;
}

export interface Kill {
  /** The upstream's scenario (http), or what the broker did (mqtt). */
  scenario: string;
  /** ms after the device started serving (a random kill). */
  afterMs?: number;
  /** point:n (a kill in a window). */
  crashAt?: string;
  /** Readings the log had recorded as begun when the device was killed. */
  begunSoFar: number;
  /** What the state file held after the kill: readings begun (operations live) and queued. */
  pendingLeft: number;
  queuedLeft: number;
}

export interface ChaosResult extends TallyResult {
  kills: Kill[];
  dir: string;
}

const SERVES = /setup page (http:\S+)/;
/** How long a device may take to reach its crash point. */
const WINDOW_MS = 60_000;

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const progress = options.onProgress ?? (() => {});
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "tickretry-chaos-"));
  const rng = new Rng(options.seed);
  const maxKillMs = options.maxKillMs ?? 1500;
  const moments = Array.from({ length: options.kills }, () => Math.round(rng.next() * maxKillMs));
  progress(`seed ${options.seed}: SIGKILL at ${moments.join(", ")} ms after each start; files in ${dir}`);
  const windows = options.windows
    ? Object.keys(CRASH_POINTS).map((point) => `${point}:${1 + Math.floor(rng.next() * 20)}`)
    : [];
  if (windows.length > 0) progress(`then SIGKILL in each window: ${windows.join(", ")}`);

  const sink =
    options.transport === "mqtt"
      ? await mqttSink(moments, options.brokerRestarts ?? 0, rng, progress)
      : await httpSink(options.kills, options.seed);
  const run = new ChaosRun(options, dir, sink, progress);
  try {
    await run.randomKills(moments);
    await run.windowKills(windows, await sink.calm());
    await run.settle();
    return await run.tallied();
  } finally {
    if (run.device !== undefined) await stop(run.device, "SIGKILL");
    await sink.close();
  }
}

/** One chaos run's files, its sink, the device running (if one is) and the kills so far. */
class ChaosRun {
  readonly logPath: string;
  readonly statePath: string;
  device: Child | undefined;
  readonly kills: Kill[] = [];

  constructor(
    private readonly options: ChaosOptions,
    private readonly dir: string,
    private readonly sink: Sink,
    private readonly progress: (line: string) => void,
  ) {
    this.logPath = join(dir, "readings.log");
    this.statePath = join(dir, "state.json");
  }

  private deviceArgs(uploadEveryMs: number): string[] {
    return [
      "device",
      "--port",
      "0",
      "--quiet",
      ...this.sink.deviceArgs,
      "--state",
      this.statePath,
      "--log",
      this.logPath,
      "--scale",
      String(this.options.scale ?? 0.5),
      "--upload-every",
      String(uploadEveryMs),
      // No retry budget: in the outage every operation keeps its slot for all its attempts,
      // so the slots fill and readings wait in the queue.
      "--budget",
      "off",
      // A new scheduler's seed; every later start restores the stored one.
      "--seed",
      String(this.options.seed),
    ];
  }

  /** The kill just made, with what the log had begun and the state file left for the next
   * start to restore; reported. */
  private killed(kill: Omit<Kill, "begunSoFar" | "pendingLeft" | "queuedLeft">, what: string): void {
    const begunSoFar = new Set(readLog(this.logPath).flatMap((e) => (e.event === "began" ? [e.reading] : [])))
      .size;
    const state = readStateFile(this.statePath);
    const k = {
      ...kill,
      begunSoFar,
      pendingLeft: state?.pending.length ?? 0,
      queuedLeft: state?.queue.length ?? 0,
    };
    this.kills.push(k);
    this.progress(
      `${what}; the state file holds ${k.pendingLeft} begun and ${k.queuedLeft} queued readings; ${k.begunSoFar} begun so far`,
    );
  }

  /** A device per moment, killed that many ms after it served. */
  async randomKills(moments: number[]): Promise<void> {
    for (const [i, afterMs] of moments.entries()) {
      await this.sink.before(i);
      this.device = await startTickretry(this.deviceArgs(this.options.uploadEveryMs ?? 50), SERVES);
      const sinkDid = this.sink.during(i);
      await sleep(afterMs);
      const how = await stop(this.device, "SIGKILL");
      const scenario = await sinkDid;
      if (how !== "SIGKILL")
        throw new Error(`the device exited (${how}) before its kill:\n${this.device.output()}`);
      this.device = undefined;
      this.killed(
        { scenario, afterMs },
        `kill ${i + 1}/${this.options.kills}: ${scenario}, SIGKILL ${afterMs} ms after it served`,
      );
    }
  }

  /** A device per window, which kills itself there; `calm`: the sink's scenario meanwhile. */
  async windowKills(windows: string[], calm: string): Promise<void> {
    for (const crashAt of windows) {
      const args = [...this.deviceArgs(this.options.uploadEveryMs ?? 50), "--crash-at", crashAt];
      this.device = await startTickretry(args, SERVES);
      const how = await exitWithin(this.device, WINDOW_MS);
      if (how !== "SIGKILL")
        throw new Error(`the device did not crash at ${crashAt} (${how}):\n${this.device.output()}`);
      this.device = undefined;
      this.killed({ scenario: calm, crashAt }, `kill in a window: ${crashAt}`);
    }
  }

  /** The last device, with no new readings, until it owes nothing; then stopped. */
  async settle(): Promise<void> {
    const device = await startTickretry(this.deviceArgs(0), SERVES);
    this.device = device;
    const statusUrl = new URL("/status.json", device.ready[1]);
    const settleEnd = performance.now() + (this.options.settleMs ?? 120_000);
    for (let s: DeviceStatus; ; await sleep(200)) {
      s = (await (await fetch(statusUrl)).json()) as DeviceStatus;
      if (s.operations.length === 0 && s.readings.queued === 0) break;
      if (performance.now() > settleEnd) {
        throw new Error(
          `still owing ${s.operations.length} operations and ${s.readings.queued} queued readings`,
        );
      }
    }
    this.progress("settled: the last device owes nothing; stopping it");
    const how = await stop(device, "SIGTERM");
    this.device = undefined;
    if (how !== 0) throw new Error(`the last device exited with ${how}`);
  }

  /** The readings log and the sink's store tallied against what the state file still owes. */
  async tallied(): Promise<ChaosResult> {
    const stored = await this.sink.stored();
    const last = readStateFile(this.statePath);
    const owed = {
      pending: last?.pending.map((p) => p.reading.id) ?? [],
      queued: last?.queue.map((r) => r.id) ?? [],
    };
    return { ...tally(readLog(this.logPath), stored, owed), kills: this.kills, dir: this.dir };
  }
}
