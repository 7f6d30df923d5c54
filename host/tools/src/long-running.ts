// What the commands that run a while (device, upstream, consumer, the chaos run) share: a
// bad command line is its message and the help, a start that fails one line, both exit
// code 2; the servers run until Ctrl-C or SIGTERM.

/**
 * What `read()` makes of the command line, or the exit code after printing the help (0,
 * when it answers "help") or what it throws after `who`, then the help (2).
 */
export function readCommandLine<T>(who: string, help: string, read: () => T | "help"): T | number {
  try {
    const result = read();
    if (result !== "help") return result;
    console.log(help);
    return 0;
  } catch (err) {
    console.error(`${who}: ${(err as Error).message}\n\n${help}`);
    return 2;
  }
}

/** `start()`'s result, or undefined after printing why it failed as `tickretry <command>: ...`. */
export async function startOrReport<T>(command: string, start: () => Promise<T>): Promise<T | undefined> {
  try {
    return await start();
  } catch (err) {
    console.error(`tickretry ${command}: ${(err as Error).message}`);
    return undefined;
  }
}

/** Resolves at the first Ctrl-C (SIGINT) or SIGTERM. Call it before printing what a parent
 * waits for (the URL): a signal sent on that line before the handlers are in kills the
 * process instead, as a loaded machine showed. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
}
