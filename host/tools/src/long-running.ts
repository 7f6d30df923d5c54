// What the long-running commands (device, upstream, consumer) share: a start that fails is
// one line and exit code 2, and they run until Ctrl-C or SIGTERM.

/** `start()`'s result, or undefined after printing why it failed as `tickretry <command>: ...`. */
export async function startOrReport<T>(command: string, start: () => Promise<T>): Promise<T | undefined> {
  try {
    return await start();
  } catch (err) {
    console.error(`tickretry ${command}: ${(err as Error).message}`);
    return undefined;
  }
}

/** Resolves at the first Ctrl-C (SIGINT) or SIGTERM. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
}
