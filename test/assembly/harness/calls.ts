// A scenario is a list of steps: host clock moves, export calls whose arguments may
// name "the host's now", "a handle begin or poll returned", "that handle's attempt + d",
// and restores of an image the host stored, so a scenario stays meaningful when it is
// shifted in time or shrunk.
import { EXPORTS, NextDue, QUERIES, State } from "../../../host/library/src/generated/abi.js";
import type { TickRetryApi } from "../../../host/library/src/tickretry.js";
import { tickAfter } from "../../../host/library/src/ticks.js";
import { damaged, formatDamage, readImage, writeImage, type Damage } from "./images.js";

/** Every call a host makes: the exports, and the queries the wrappers read through field. */
export const CALLS = { ...EXPORTS, ...QUERIES };
export type ExportName = keyof typeof CALLS;
export const EXPORT_NAMES = Object.keys(CALLS) as ExportName[];

/** What module and model have in common: every export, and a memory holding the image area. */
export type Target = Omit<TickRetryApi, "memory"> & { readonly memory: { readonly buffer: ArrayBuffer } };

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

/**
 * The host copies the `image`-th most recent image it stored (none: nothing) into the image
 * area, maybe damaged, of the running instance or of a fresh one (a reboot, whose tick
 * counter reads `jump` ticks on), and calls restore(length, now, elapsed, flags).
 */
export interface RestoreStep {
  restore: { image: number; fresh: boolean; jump: number; elapsed: number; flags: number; damage?: Damage };
}
export type Step = { tick: number } | Call | RestoreStep;

/** How far back `inState` looks among the handles begin returned. */
const RECENT = 32;

export const v = (x: number): Arg => ({ v: x });
export const NOW: Arg = { now: true };

/** The host side of a scenario: its clock, the handles it has been given, the images it stored. */
export class Host {
  readonly handles: number[] = [];
  readonly images: Uint8Array[] = [];
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

  /** Remembers handles returned by begin and poll and images save wrote (read from `reader`); sleeps until what nextDue said. */
  saw(step: Call, result: number, reader: Target): void {
    if (step.fn === "begin" && result >= 0) this.issued(result);
    if (step.fn === "poll" && result >= 0) this.polled.push(result);
    if (step.fn === "save" && result > 0) this.images.push(readImage(reader, result));
    if (step.sleep && result >>> 0 !== NextDue.IDLE) this.move(result >>> 0);
  }

  move(ticks: number): void {
    this.now = tickAfter(this.now, ticks);
  }

  /**
   * What a restore step copies in: the bytes, the length passed, and whether it goes into a
   * fresh instance (only with an image stored: a host with none would init instead). A
   * fresh one's clock moves by the step's jump.
   */
  restoreInput(step: RestoreStep): RestoreInput {
    const r = step.restore;
    const fresh = r.fresh && this.images.length > 0;
    if (fresh) this.move(r.jump);
    const image =
      this.images.length === 0
        ? new Uint8Array(0)
        : this.images[this.images.length - 1 - (r.image % this.images.length)];
    return { ...damaged(image, r.damage), fresh };
  }
}

export interface RestoreInput {
  bytes: Uint8Array;
  length: number;
  fresh: boolean;
}

/** Copies the input into `target`'s image area and calls restore at the host's now. */
export function restoreInto(target: Target, input: RestoreInput, step: RestoreStep, now: number): number {
  writeImage(target, input.bytes);
  return target.restore(input.length, now, step.restore.elapsed, step.restore.flags);
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
  if ("restore" in s) {
    const r = s.restore;
    const where = r.fresh ? `a fresh instance, clock +${r.jump >>> 0}` : "the running instance";
    const what = r.damage ? `, ${formatDamage(r.damage)}` : "";
    return `restore image${r.image}${what} into ${where}, elapsed ${r.elapsed >>> 0}, flags ${r.flags >>> 0}`;
  }
  return `${s.fn}(${s.args.map(showArg).join(", ")})${s.sleep ? " and sleep that long" : ""}`;
}
