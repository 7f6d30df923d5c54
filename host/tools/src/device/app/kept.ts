// The device's state file, standing in for the NVS partition of a board: the module's
// saved image and the readings the device still owes the upstream (begun ones by
// operation id, queued ones in order), so that a restarted process goes on where the
// last one stopped. A write replaces the whole file atomically (a temporary file,
// fsync, rename, fsync of the directory): a kill at any moment leaves the old state or
// the new one, never a mix. A file that does not read back as a state is refused with a
// message that names the file and the field; nothing is guessed. The password's and the
// settings' files beside it, and the chaos run's crash points around its writes, are here too.
import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { Jitter, errorName, saveImage, type PolicyFields, type TickRetryApi } from "tickretry";
import type { DeviceClock } from "../clock.js";
import { ModuleFault } from "../module.js";
import type { Running } from "../running.js";
import type { BudgetName } from "../policies.js";
import type { LogEvent, Reading, ReadingsLog, Recorder } from "./readings.js";
import { isPasswordHash, type PasswordKeeper } from "./password.js";
import { DEFAULT_BROKER, type BrokerSettings, type StoredSession } from "./broker.js";
import type { Settings, SettingsKeeper } from "./settings.js";

/** A reading begun under an operation: the module's handle for it survives a restore. */
export interface PendingReading {
  operationId: number;
  handle: number;
  reading: Reading;
}

export interface DeviceState {
  /** Wall-clock ms when the image was saved: the RTC, which runs on through a reset or a deep sleep. */
  savedAtMs: number;
  /** What the module's save() wrote. */
  image: Uint8Array;
  /** The policy and budget inside the image, for people (the image is what counts). */
  policy: PolicyFields;
  budget: BudgetName;
  /** The reading epoch of the boot that wrote this state (app/readings.ts, readingId). */
  epoch: number;
  /** The highest module version the device accepted (anti-rollback). */
  moduleVersion: number;
  /** The next reading's place in that epoch. */
  nextReading: number;
  pending: PendingReading[];
  queue: Reading[];
  /** Readings dropped so far because the queue was full. */
  dropped: number;
  /** Log lines this state holds that the readings log may not have yet. */
  outbox: LogEvent[];
  /** State-file writes so far, this one included. */
  writes: number;
  /** Operations ended so far (for writes per operation). */
  ended: number;
  /** The broker connection's session (MQTT transport only). */
  session?: StoredSession;
}

/** Where the device keeps its state: a file, or memory (gone with the process). */
export interface StateStore {
  /** The file's path, or "memory". */
  readonly where: string;
  /** The device password's hash, kept apart from the state (its own NVS key on a board). */
  readonly password: PasswordKeeper;
  /** The setup form's settings (their own NVS keys on a board); saved before the page says so. */
  readonly settings: SettingsKeeper;
  /** The stored state, or undefined when there is none yet; throws StateFileError for a bad one. */
  load(): DeviceState | undefined;
  /** Stores `state` durably before returning; returns its size in bytes. */
  save(state: DeviceState): number;
}

export class StateFileError extends Error {}

const FORMAT = 2;

/**
 * The file: the state's JSON inside an envelope that carries its SHA-256, so that a flipped
 * bit anywhere (not only in the image, which has its own CRC) is refused rather than
 * taken up as other content: `{"sha256":"<hex>","state":<the state's JSON>}`.
 */
export function seal(stateJson: string): string {
  return `{"sha256":"${createHash("sha256").update(stateJson).digest("hex")}","state":${stateJson}}`;
}

const SEALED = /^\{"sha256":"([0-9a-f]{64})","state":([\s\S]*)\}$/;

function encode(s: DeviceState): string {
  return seal(JSON.stringify({ format: FORMAT, ...s, image: Buffer.from(s.image).toString("base64") }));
}

const isU32 = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) < 2 ** 32;
const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isI32 = (v: unknown): v is number => Number.isInteger(v) && Math.abs(v as number) < 2 ** 31;

const isReading = (v: unknown): v is Reading =>
  typeof v === "object" && v !== null && isId((v as Reading).id) && Number.isFinite((v as Reading).celsius);
const isPending = (v: unknown): v is PendingReading =>
  typeof v === "object" &&
  v !== null &&
  isI32((v as PendingReading).operationId) &&
  isI32((v as PendingReading).handle) &&
  (v as PendingReading).handle >= 0 &&
  isReading((v as PendingReading).reading);
const isEvent = (v: unknown): v is LogEvent =>
  typeof v === "object" &&
  v !== null &&
  ["taken", "began", "ended", "dropped"].includes((v as LogEvent).event) &&
  isId((v as LogEvent).reading);
const arrayOf =
  <T>(ok: (v: unknown) => v is T) =>
  (v: unknown): v is T[] =>
    Array.isArray(v) && v.every(ok);
const isPolicy = (v: unknown): v is PolicyFields => {
  if (typeof v !== "object" || v === null) return false;
  const p = v as PolicyFields;
  const spans = [p.maxAttempts, p.attemptTimeout, p.baseDelay, p.maxDelay, p.throttleBaseDelay, p.deadline];
  return (
    spans.every(isU32) &&
    typeof p.idempotent === "boolean" &&
    (Object.hasOwn(Jitter, String(p.jitter)) || Object.values(Jitter).includes(p.jitter as Jitter))
  );
};
const isBase64 = (v: unknown): v is string => typeof v === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(v);

/** The state's JSON object inside the sealed envelope, once its checksum holds. */
function unseal(text: string, fail: (what: string) => never): Record<string, unknown> {
  try {
    JSON.parse(text);
  } catch (err) {
    return fail(`not JSON (${(err as Error).message})`);
  }
  const sealed = SEALED.exec(text);
  if (sealed === null) return fail("no checksum (not a state file of this device)");
  if (createHash("sha256").update(sealed[2]).digest("hex") !== sealed[1]) {
    return fail("its checksum does not match its content (damaged)");
  }
  const raw = JSON.parse(sealed[2]);
  if (typeof raw !== "object" || raw === null) return fail("not an object");
  if (raw.format !== FORMAT) return fail(`format ${String(raw.format)}, this device reads ${FORMAT}`);
  return raw;
}

/** Reads a state back, checking every field; the message names the first that is wrong. */
export function decode(text: string, where: string): DeviceState {
  const fail = (what: string): never => {
    throw new StateFileError(`state file ${where}: ${what}; move it away to start afresh`);
  };
  const raw = unseal(text, fail);
  const field = <T>(name: string, ok: (v: unknown) => v is T, what: string): T => {
    const v = raw[name];
    return ok(v) ? v : fail(`field ${name} is not ${what}`);
  };
  const state: DeviceState = {
    savedAtMs: field("savedAtMs", (v): v is number => Number.isFinite(v), "a time"),
    image: new Uint8Array(Buffer.from(field("image", isBase64, "base64"), "base64")),
    policy: field("policy", isPolicy, "a policy"),
    budget: field(
      "budget",
      (v): v is BudgetName => v === "firmware" || v === "aws" || v === "off",
      "firmware, aws or off",
    ),
    epoch: field("epoch", isU32, "a u32"),
    moduleVersion: field("moduleVersion", isU32, "a u32"),
    nextReading: field("nextReading", isU32, "a u32"),
    pending: field("pending", arrayOf(isPending), "a list of begun readings"),
    queue: field("queue", arrayOf(isReading), "a list of readings"),
    dropped: field("dropped", isU32, "a count"),
    outbox: field("outbox", arrayOf(isEvent), "a list of log lines"),
    writes: field("writes", isU32, "a count"),
    ended: field("ended", isU32, "a count"),
  };
  if (raw.session !== undefined) {
    const session = (v: unknown): v is StoredSession =>
      typeof v === "object" &&
      v !== null &&
      isI32((v as StoredSession).operationId) &&
      isI32((v as StoredSession).handle) &&
      (v as StoredSession).handle >= 0;
    state.session = field("session", session, "a broker session");
  }
  const ids = new Set(state.pending.map((p) => p.operationId));
  if (ids.size !== state.pending.length) fail("field pending holds an operation id twice");
  const readings = [...state.pending.map((p) => p.reading.id), ...state.queue.map((r) => r.id)];
  if (new Set(readings).size !== readings.length) fail("fields pending and queue hold a reading twice");
  return state;
}

/** The state in the file at `path`, or undefined when there is none; reading claims nothing. */
export function readStateFile(path: string): DeviceState | undefined {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateFileError(`state file ${path}: ${(err as Error).message}`);
  }
  return decode(text, path);
}

/** The lock files this process holds, removed at its exit. */
const held = new Set<string>();

/** Whether process `pid` is alive (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Makes this process the state file's only user, as a board is its flash's: a lock file
 * beside it holds the owner's pid. A lock whose process is gone (killed) is taken over;
 * one held by a live process is refused. Removed when this process exits.
 */
function claim(path: string): void {
  const lock = `${path}.lock`;
  for (;;) {
    try {
      // Owner only, as every file the device writes: nobody else's business which process holds it.
      writeFileSync(lock, String(process.pid), { flag: "wx", mode: 0o600 });
      if (held.size === 0) process.once("exit", () => held.forEach((l) => rmSync(l, { force: true })));
      held.add(lock);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const owner = Number(readFileSync(lock, "utf8"));
    if (owner === process.pid) return;
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
      throw new StateFileError(
        `state file ${path} is in use by process ${owner} (another device); pass --state with another file`,
      );
    }
    rmSync(lock, { force: true });
  }
}

/**
 * Replaces the file at `path` with `bytes` atomically. The temporary file beside it has a
 * fixed name: one left by a kill mid-write is simply written over, and never read.
 */
export function writeDurably(path: string, bytes: Buffer): void {
  const temp = `${path}.tmp`;
  // Owner only: the state, the password's hash and the Wi-Fi password are nobody else's
  // (fchmod too, for a temporary file a kill left with another mode).
  const fd = openSync(temp, "w", 0o600);
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  // The rename itself is durable only once the directory is.
  const dirFd = openSync(dirname(path), "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/** The password hash in the file `path` (absent until a password is set). */
function passwordFile(path: string): PasswordKeeper {
  return {
    load() {
      if (!existsSync(path)) return undefined;
      const hash = readFileSync(path, "utf8").trim();
      if (!isPasswordHash(hash)) {
        throw new StateFileError(
          `password file ${path}: not a stored password hash; move it away to set a new one`,
        );
      }
      return hash;
    },
    save: (hash) => writeDurably(path, Buffer.from(`${hash}\n`)),
  };
}

const isSettings = (v: unknown): v is Settings =>
  typeof v === "object" &&
  v !== null &&
  ["ssid", "password", "upstreamUrl"].every((k) => typeof (v as Record<string, unknown>)[k] === "string");

/** The settings' JSON object inside its sealed envelope, once its checksum holds. */
function unsealSettings(text: string, path: string): unknown {
  const fail = (what: string): never => {
    throw new StateFileError(
      `settings file ${path}: ${what}; the device runs on its defaults until the form saves new settings`,
    );
  };
  const sealed = SEALED.exec(text.trimEnd());
  if (sealed === null) return fail("no checksum (damaged, or not a settings file of this device)");
  if (createHash("sha256").update(sealed[2]).digest("hex") !== sealed[1]) {
    return fail("its checksum does not match its content (damaged)");
  }
  try {
    return JSON.parse(sealed[2]);
  } catch (err) {
    return fail(`not JSON (${(err as Error).message})`);
  }
}

/**
 * The settings in the file `path` (absent until the form saved them), sealed with a
 * SHA-256 as the state file is: a flipped bit would otherwise load as another URL, broker
 * password or topic, and send readings (and credentials) where nobody chose.
 */
function settingsFile(path: string): SettingsKeeper {
  return {
    load() {
      if (!existsSync(path)) return undefined;
      const v = unsealSettings(readFileSync(path, "utf8"), path);
      if (!isSettings(v))
        throw new StateFileError(`settings file ${path}: not ssid, password and upstreamUrl; move it away`);
      // A file saved before the broker settings existed has their defaults.
      const broker = (Object.keys(DEFAULT_BROKER) as (keyof BrokerSettings)[]).map((k) => {
        const value = (v as unknown as Record<string, unknown>)[k];
        return [k, typeof value === "string" ? value : DEFAULT_BROKER[k]];
      });
      return {
        ...Object.fromEntries(broker),
        ssid: v.ssid,
        password: v.password,
        upstreamUrl: v.upstreamUrl,
      };
    },
    save: (s) => writeDurably(path, Buffer.from(seal(JSON.stringify(s)) + "\n")),
  };
}

const REASONS: Record<string, string> = {
  ENOTDIR: "it runs through a file that is not a folder",
  EACCES: "permission denied",
  EROFS: "the file system is read-only",
  ENOENT: "the folder cannot be created there",
};

/** A StateFileError naming `path`, what was being done and why it failed, in words. */
const storeError = (path: string, doing: string, err: unknown) =>
  new StateFileError(
    `state file ${path}: cannot ${doing}: ${REASONS[(err as NodeJS.ErrnoException).code ?? ""] ?? (err as Error).message}; ` +
      "pass --state with another path",
  );

/**
 * Creates the folders `dir` lacks, one level at a time from the nearest that exists
 * (mkdirSync's recursive mode never returns under /proc), refusing in words a path
 * through a file or one the system will not create.
 */
function ensureFolder(dir: string, path: string): void {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    try {
      if (!statSync(at).isDirectory()) throw Object.assign(new Error(at), { code: "ENOTDIR" });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        throw storeError(path, `use the folder ${dir}`, err);
      missing.unshift(at);
      if (dirname(at) === at) break;
    }
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (err) {
      throw storeError(path, `create the folder ${folder}`, err);
    }
  }
}

/** A state file at `path`, written atomically, and the password's and settings' files beside it. */
export function fileStore(path: string): StateStore {
  ensureFolder(dirname(path), path);
  try {
    claim(path);
  } catch (err) {
    throw err instanceof StateFileError ? err : storeError(path, "take its lock file", err);
  }
  return {
    where: path,
    password: passwordFile(`${path}.password`),
    settings: settingsFile(`${path}.settings`),
    load: () => readStateFile(path),
    save(state) {
      const bytes = Buffer.from(encode(state));
      writeDurably(path, bytes);
      return bytes.length;
    },
  };
}

/** State kept in memory, encoded and checked like the file's: survives a reboot of the device, not of the process. */
export function memoryStore(): StateStore {
  let text: string | undefined;
  let hash: string | undefined;
  let settings: Settings | undefined;
  return {
    where: "memory",
    password: { load: () => hash, save: (h) => (hash = h) },
    settings: { load: () => settings, save: (s) => (settings = { ...s }) },
    load: () => (text === undefined ? undefined : decode(text, "memory")),
    save(state) {
      text = encode(state);
      return Buffer.byteLength(text);
    },
  };
}

export interface StoreFigures {
  where: string;
  /** State-file writes over the device's life (kept in the state itself). */
  writes: number;
  /** Writes the store refused (a full disk) since this process started; each is tried again. */
  writeFailures: number;
  /** Operations ended over the device's life. */
  operationsEnded: number;
  /** The last write's size, and the image's inside it, bytes. */
  bytes: number;
  imageBytes: number;
  /** The longest write since this process started (temporary file, fsync, rename, fsync), ms. */
  maxWriteMs: number;
}

/** What the other rooms give a write: everything but the image, the log lines and the counts. */
export type KeptParts = Omit<
  DeviceState,
  "savedAtMs" | "image" | "policy" | "budget" | "outbox" | "writes" | "ended"
>;

/**
 * The kept state as the loop writes it: a pass writes the state file when changes() moved
 * since the last write or the readings changed, and not otherwise (an idle device writes
 * nothing), then appends the log lines the write made durable. The policy and budget are
 * the scheduler's, kept with it: a restored scheduler keeps its own.
 */
export class Kept implements Recorder {
  readonly figures: StoreFigures;
  policy: PolicyFields;
  budget: BudgetName;
  /** Whether the pass's state write succeeded (an attempt is sent only then). */
  stored = true;
  /** Log lines of changes not yet in the state file; appended to the log once they are. */
  private outbox: LogEvent[] = [];
  /** changes() as of the last write, and whether the readings moved since. */
  private writtenChanges = 0;
  private changed = false;
  private readonly startedMs: number;
  private writesAtStart = 0;

  constructor(
    readonly store: StateStore,
    private readonly clock: DeviceClock,
    fresh: { policy: PolicyFields; budget: BudgetName },
    private readonly log?: ReadingsLog,
    private readonly crash?: (point: CrashPoint) => void,
  ) {
    this.policy = fresh.policy;
    this.budget = fresh.budget;
    this.figures = {
      where: store.where,
      writes: 0,
      writeFailures: 0,
      operationsEnded: 0,
      bytes: 0,
      imageBytes: 0,
      maxWriteMs: 0,
    };
    this.startedMs = clock.nowMs();
  }

  /** A boot: the counts the state kept, and a write due at the first pass (the new epoch). */
  boot(stored: DeviceState | undefined, api: TickRetryApi): void {
    this.figures.writes = stored?.writes ?? 0;
    this.figures.operationsEnded = stored?.ended ?? 0;
    this.outbox = [];
    this.writtenChanges = api.changes();
    this.changed = true;
  }

  /** The stored state's scheduler and the log lines it holds that the log may lack (a kill between the two writes). */
  restore(stored: DeviceState): void {
    this.policy = stored.policy;
    this.budget = stored.budget;
    this.log?.append(stored.outbox);
  }

  /** The first boot's writes are the process's start: writesPerDay counts from there. */
  started(): void {
    this.writesAtStart = this.figures.writes;
  }

  record(event: LogEvent): void {
    this.outbox.push(event);
    this.changed = true;
  }

  countEnd(): void {
    this.figures.operationsEnded++;
  }

  /** Something kept outside the image changed (the module version floor): the next pass writes. */
  markChanged(): void {
    this.changed = true;
  }

  /** Writes the state when anything durable changed; false when the store refused it (counted). */
  write(running: Running, now: number, parts: () => KeptParts): boolean {
    const api = running.api;
    if (api.changes() === this.writtenChanges && !this.changed) return true;
    this.crash?.("before-write");
    const image = saveImage(api, now);
    if (typeof image === "number") throw new ModuleFault(`save refused: ${errorName(image)}`);
    const f = this.figures;
    const t0 = this.clock.nowMs();
    const { epoch, moduleVersion, nextReading, pending, queue, dropped, session } = parts();
    const state: DeviceState = {
      // The RTC's reading at `now`: the image's spans count from here.
      savedAtMs: running.passMs + running.rtcOffsetMs,
      image,
      policy: this.policy,
      budget: this.budget,
      epoch,
      moduleVersion,
      nextReading,
      pending,
      queue,
      dropped,
      session,
      outbox: this.outbox,
      writes: f.writes + 1,
      ended: f.operationsEnded,
    };
    try {
      f.bytes = this.store.save(state);
    } catch {
      // A full or failing disk: counted and shown; everything stays to be written again.
      f.writeFailures++;
      return false;
    }
    this.crash?.("after-write");
    // A figure of the write itself, not an input to the pass (0 under a virtual clock).
    f.maxWriteMs = Math.max(f.maxWriteMs, this.clock.nowMs() - t0);
    f.writes++;
    f.imageBytes = image.length;
    this.writtenChanges = api.changes();
    this.changed = false;
    this.log?.append(this.outbox);
    this.outbox = [];
    return true;
  }

  /** State writes a day since this process started (each a change of the kept state); undefined before one. */
  writesPerDay(): number | undefined {
    const writes = this.figures.writes - this.writesAtStart;
    return writes === 0 ? undefined : writes / ((this.clock.nowMs() - this.startedMs) / 86_400_000);
  }
}

// Fault injection for the chaos run: the device kills itself with SIGKILL the Nth time it
// reaches a named point of its pass. Random kills seldom land in the narrow windows that
// matter (between deciding what to write and writing it, between the state file and the
// log, between an answer arriving and its report); these land there every time.
export const CRASH_POINTS = {
  /** Operations begun, ended or started in this pass, none of it in the state file yet. */
  "before-write": "before the state file is written",
  /** The state file written, the readings log not yet. */
  "after-write": "after the state file is written, before the log",
  /** An answer arrived (the upstream may have stored the upload), not yet reported. */
  answer: "after an answer arrives, before it is reported",
} as const;

export type CrashPoint = keyof typeof CRASH_POINTS;

export interface CrashAt {
  point: CrashPoint;
  /** Crash the nth time the point is reached (1: the first). */
  nth: number;
}

/** Reads "point:n" (as --crash-at takes it); throws a message naming what is wrong. */
export function parseCrashAt(text: string): CrashAt {
  const [point, nth] = text.split(":");
  if (!Object.hasOwn(CRASH_POINTS, point)) {
    throw new Error(`--crash-at: no point "${point}"; one of ${Object.keys(CRASH_POINTS).join(", ")}`);
  }
  const n = Number(nth);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--crash-at wants point:n with n from 1, got "${text}"`);
  return { point: point as CrashPoint, nth: n };
}

/** A function to call at each point: it kills the process at the one asked for. */
export function crasher(at: CrashAt): (point: CrashPoint) => void {
  let seen = 0;
  return (point) => {
    if (point !== at.point || ++seen < at.nth) return;
    process.kill(process.pid, "SIGKILL");
    // The signal is on its way; let nothing of this pass run meanwhile.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
  };
}
