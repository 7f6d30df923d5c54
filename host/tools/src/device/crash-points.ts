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
