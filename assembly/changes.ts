// changes(): a number that moves when the state an image records has changed, other than
// by the passage of time, so a host writes flash only when the image would differ
// (docs/ABI.md, changes). Writers of durable state call touch(); reading folds the flag in.
import { BLOCK, CHANGES_AT, ChangesWords } from "./state";

const words = changetype<ChangesWords>(BLOCK + CHANGES_AT);

/** Notes that durable state changed. */
export function touch(): void {
  words.touched = 1;
}

/** Adds one when durable state changed since the last call; never reset. */
export function changes(): u32 {
  words.moves += words.touched;
  words.touched = 0;
  return words.moves;
}
