// Whether init (or an accepted restore) has run: a word of the state block. Its own file,
// so that every part can ask without importing the state machine (policy.ts once imported
// machine.ts for this alone).
import { BLOCK, SCHEDULE_AT, ScheduleWords } from "./state";

const words = changetype<ScheduleWords>(BLOCK + SCHEDULE_AT);

/** True once init or an accepted restore has run. */
export function isInitialized(): bool {
  return words.initialized != 0;
}

/** init or restore put a whole state in place. */
export function markInitialized(): void {
  words.initialized = 1;
}
