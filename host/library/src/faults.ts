// Scripted fault outcomes: what each successive attempt of an operation meets.
import { Outcome } from "./generated/abi.js";

/** One attempt's fate: an outcome after `latency` ticks, or a hang (never answers). */
export type Fate =
  | { outcome: Exclude<keyof typeof Outcome, "NONE" | "TIMEOUT">; latency: number; retryAfter?: number }
  | { hang: true };

/**
 * Shorthands for scripts: `TRANSIENT@200` fails after 200 ticks, `THROTTLED@50+RA2500`
 * asks for a 2500-tick Retry-After, `HANG` never answers; anything else throws, naming the text.
 * @example
 * ```ts
 * parseFate("THROTTLED@50+RA2500"); // { outcome: "THROTTLED", latency: 50, retryAfter: 2500 }
 * ```
 */
export function parseFate(text: string): Fate {
  if (text === "HANG") return { hang: true };
  const m = /^(SUCCESS|TRANSIENT|THROTTLED|AMBIGUOUS|PERMANENT)@(\d+)(?:\+RA(\d+))?$/.exec(text);
  if (!m) throw new Error(`bad fate "${text}": want OUTCOME@latency[+RAticks] or HANG`);
  const fate: Fate = { outcome: m[1] as "SUCCESS", latency: Number(m[2]) };
  if (m[3] !== undefined) fate.retryAfter = Number(m[3]);
  return fate;
}

/**
 * A list of fates taken in order; the last repeats once the list runs out.
 * @example
 * ```ts
 * import { FaultScript } from "tickretry";
 *
 * const script = new FaultScript(["HANG", "TRANSIENT@300", "SUCCESS@20"]);
 * console.log(script.next(), script.next(), script.next(), script.next()); // the last repeats
 * ```
 */
export class FaultScript {
  private index = 0;
  private readonly fates: Fate[];

  /** `fates`: at least one, as {@link Fate} objects or {@link parseFate} shorthands. */
  constructor(fates: (Fate | string)[]) {
    if (fates.length === 0) throw new Error("a fault script needs at least one fate");
    this.fates = fates.map((f) => (typeof f === "string" ? parseFate(f) : f));
  }

  /** The fate of the next attempt. */
  next(): Fate {
    const fate = this.fates[Math.min(this.index, this.fates.length - 1)];
    this.index++;
    return fate;
  }
}
