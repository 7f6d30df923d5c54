// changes(): a number that moves when the state an image records has changed, other than
// by the passage of time, so a host writes flash only when the image would differ
// (docs/ABI.md, changes). Writers of durable state call touch(); reading folds the flag in.

let touched: bool = false;
let moves: u32 = 0;

/** Notes that durable state changed. */
export function touch(): void {
  touched = true;
}

/** Adds one when durable state changed since the last call; never reset. */
export function changes(): u32 {
  moves += <u32>touched;
  touched = false;
  return moves;
}
