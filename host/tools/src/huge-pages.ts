// A big fleet keeps its devices in a few large typed arrays, and every event touches a
// random device's part of them: with 4 KiB pages, most such touches also miss the TLB.
// glibc (2.35 on) asks the kernel for transparent huge pages for the memory it maps when
// its tunable below is set, which has to be before the process starts. So a command that
// is about to run a big fleet runs itself again with it: strategy C at a million devices
// took 113.5 s instead of 125.9 s, and 300,000 devices 14% less (docs/fleet.md, Speed).
import { spawn } from "node:child_process";
import { constants } from "node:os";

/** Fleets of this many devices or more run with huge pages. */
export const HUGE_PAGES_FROM = 100_000;

const TUNABLE = "glibc.malloc.hugetlb";
/** The signals this process passes on to the child. */
const FORWARDED = ["SIGINT", "SIGTERM"] as const;

/** GLIBC_TUNABLES: those `given`, and the huge pages'. */
export function withHugePages(given: string | undefined): string {
  return given ? `${given}:${TUNABLE}=1` : `${TUNABLE}=1`;
}

/**
 * For a run of `devices` devices on Linux, where this process was started without glibc's
 * huge-page tunable: runs this command again with it (same arguments, standard streams
 * and Node options) and answers its exit code. Otherwise undefined: run it here. Where
 * glibc is older or not there, or the kernel gives no huge pages, the second process runs
 * as the first would have.
 */
export function inHugePages(devices: number): Promise<number> | undefined {
  const tunables = process.env.GLIBC_TUNABLES;
  if (devices < HUGE_PAGES_FROM || process.platform !== "linux" || tunables?.includes(TUNABLE)) return;
  const env = { ...process.env, GLIBC_TUNABLES: withHugePages(tunables) };
  // A signal for this process is the child's: it ends the run, and this one then answers
  // as the child ended. The handlers go in before the spawn: the child is running (and
  // visible) before spawn returns, and a signal in between would end this process instead.
  // A listener runs from the event loop, after the spawn below has assigned the child.
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const s of FORWARDED) process.on(s, forward);
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env,
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      for (const s of FORWARDED) process.off(s, forward);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}
