// The recovery spread: when a restore, a kick or a closing breaker makes many operations
// due together, each starts at its own point of its policy's window (docs/ABI.md, Link-up
// kick and recovery spread), so that a fleet's recovery is not one burst.
import { touch } from "./changes";
import { uniform } from "./random";
import { Policy } from "./state";

/** A point of the policy's spread window, uniform in [0, spread]; 0 without a draw when spread is 0. */
export function spreadDraw(p: Policy): u32 {
  if (p.spread == 0) return 0;
  touch(); // the PRNG moved
  return uniform(0, p.spread);
}
