// Whether init (or an accepted restore) has run. Its own file, so that every part can ask
// without importing the state machine (policy.ts once imported machine.ts for this alone).

let initialized: bool = false;

/** True once init or an accepted restore has run. */
export function isInitialized(): bool {
  return initialized;
}

/** init or restore put a whole state in place. */
export function markInitialized(): void {
  initialized = true;
}
