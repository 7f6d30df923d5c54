// A scenario is a list of steps: host clock moves and export calls whose arguments may
// name "the host's now", "a handle begin or poll returned", "that handle's attempt + d",
// so a scenario stays meaningful when it is shifted in time or shrunk.
import { EXPORTS, NextDue, State } from "../../host/abi.js";
import type { TickRetryApi } from "../../host/tickretry.js";
import { tickAfter } from "../../host/ticks.js";

/** ABI v2 exports the reference model does not know yet: left out of lockstep runs. */
const NOT_MODELLED = ["save", "imageAddress", "restore", "changes", "ended", "slot"] as const;
type NotModelled = (typeof NOT_MODELLED)[number];

export type ExportName = Exclude<keyof typeof EXPORTS, NotModelled>;
export const EXPORT_NAMES = Object.keys(EXPORTS).filter(
  (name) => !(NOT_MODELLED as readonly string[]).includes(name),
) as ExportName[];

/** What module and model have in common: every export the model knows. */
export type Target = Omit<TickRetryApi, "memory" | NotModelled>;

export type Arg =
  | { v: number } // a literal 32-bit value
  | { now: true } // the host's tick
  | { h: number } // the handle begin returned `h` begins ago (mod count)
  | { polled: number } // the handle poll returned `polled` starts ago (mod count)
  | { inState: number; k: number } // the k-th most recent handle in that state (mod count), if any
  | { attemptOf: Arg; plus: number } // attempt(that handle) + plus: current or stale
  | { untilDeadline: Arg; plus: number }; // deadline(that handle) - now + plus: a Retry-After at the edge

/** A clock move, or a call; a call with `sleep` (nextDue) then moves the clock by its result. */
export type Call = { fn: ExportName; args: Arg[]; sleep?: true };
export type Step = { tick: number } | Call;

/** How far back `inState` looks among the handles begin returned. */
const RECENT = 32;

export const v = (x: number): Arg => ({ v: x });
export const NOW: Arg = { now: true };

/** The host side of a scenario: its clock and the handles it has been given. */
export class Host {
  readonly handles: number[] = [];
  private readonly polled: number[] = [];
  private readonly known = new Set<number>();
  constructor(public now: number) {}

  private pick(list: number[], k: number): number {
    return list.length === 0 ? 0 : list[list.length - 1 - (k % list.length)];
  }

  /** Resolves one argument; `reader` answers state(), attempt() and deadline() for the relative ones. */
  private value(a: Arg, reader: Target): number {
    if ("v" in a) return a.v | 0;
    if ("now" in a) return this.now | 0;
    if ("h" in a) return this.pick(this.handles, a.h) | 0;
    if ("polled" in a) return this.pick(this.polled, a.polled) | 0;
    if ("inState" in a) {
      const recent = this.handles.slice(-RECENT).filter((h) => reader.state(h) === a.inState);
      return this.pick(recent.length > 0 ? recent : this.handles, a.k) | 0;
    }
    if ("attemptOf" in a) return (reader.attempt(this.value(a.attemptOf, reader)) + a.plus) | 0;
    return (reader.deadline(this.value(a.untilDeadline, reader)) - this.now + a.plus) | 0;
  }

  /** Appends a handle begin returned; one issued again (its slot's generation wrapped) moves last. */
  private issued(h: number): void {
    if (this.known.has(h)) this.handles.splice(this.handles.indexOf(h), 1);
    this.known.add(h);
    this.handles.push(h);
  }

  /** Resolves a call's arguments (see value). */
  resolve(args: Arg[], reader: Target): number[] {
    return args.map((a) => this.value(a, reader));
  }

  /** Remembers handles returned by begin and poll; sleeps until what nextDue said. */
  saw(step: Call, result: number): void {
    if (step.fn === "begin" && result >= 0) this.issued(result);
    if (step.fn === "poll" && result >= 0) this.polled.push(result);
    if (step.sleep && result >>> 0 !== NextDue.IDLE) this.move(result >>> 0);
  }

  move(ticks: number): void {
    this.now = tickAfter(this.now, ticks);
  }
}

/** Calls export `fn` of `target` with resolved arguments. */
export function invoke(target: Target, fn: ExportName, args: number[]): number {
  return Reflect.apply(target[fn], target, args) as number;
}

const STATE_NAMES = Object.fromEntries(Object.entries(State).map(([name, n]) => [n, name.toLowerCase()]));

const showArg = (a: Arg): string => {
  if ("v" in a) return String(a.v);
  if ("now" in a) return "now";
  if ("h" in a) return `h${a.h}`;
  if ("polled" in a) return `polled${a.polled}`;
  if ("inState" in a) return `${STATE_NAMES[a.inState]}${a.k}`;
  const plus = `${a.plus < 0 ? "" : "+"}${a.plus}`;
  if ("attemptOf" in a) return `attempt(${showArg(a.attemptOf)})${plus}`;
  return `deadline(${showArg(a.untilDeadline)})-now${plus}`;
};

/** One line per step, for counterexamples. */
export function formatStep(s: Step): string {
  if ("tick" in s) return `tick +${s.tick >>> 0}`;
  return `${s.fn}(${s.args.map(showArg).join(", ")})${s.sleep ? " and sleep that long" : ""}`;
}
