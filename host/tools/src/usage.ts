// What the experiment commands (fleet, contention) share about their arguments: a usage
// error is a message and exit code 2, never a stack trace; numbers are plain decimal.
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A bad command line: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {}

type Strict<O> = { args: string[]; strict: true; allowPositionals: false; options: O };

/** `args` with a negative number after an option joined to it (`--scale -1` as
 * `--scale=-1`): parseArgs would call it ambiguous, and the option's own check says better
 * what is wrong ("want a number from ..."). */
export function joinNegativeValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const next = args[i + 1];
    const option = /^--[^=]+$/.test(args[i]);
    if (option && next !== undefined && /^-[0-9.]/.test(next)) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

/** The options of `args` (strict, no positionals); what parseArgs refuses is a UsageError. */
export function parseOptions<const O extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: O,
): ReturnType<typeof parseArgs<Strict<O>>>["values"] {
  try {
    return parseArgs({ args: joinNegativeValues(args), strict: true, allowPositionals: false, options })
      .values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** `text` as a whole number from min to max; `why` is added to the message. */
export function integerArg(
  name: string,
  text: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  why = "",
): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) {
    throw new UsageError(`--${name} "${text}": want a whole number from ${min} to ${max}${why}`);
  }
  return n;
}

/** `text` if it is one of `options`. */
export function choiceArg<T extends string>(name: string, text: string, options: readonly T[]): T {
  if (!options.includes(text as T))
    throw new UsageError(`--${name} "${text}": want one of ${options.join(", ")}`);
  return text as T;
}

/**
 * Runs `plan(args)`: its result, or undefined after printing the help (exit 0) or the usage
 * error (exit 2) into `exit`. Any other error is a bug and is thrown.
 */
export function planOrExit<P>(
  command: string,
  help: string,
  plan: (args: string[]) => P | "help",
  args: string[],
): { plan: P } | { exit: number } {
  try {
    const p = plan(args);
    if (p !== "help") return { plan: p };
    console.log(help);
    return { exit: 0 };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`tickretry ${command}: ${e.message}\n'tickretry ${command} --help' for the options.`);
    return { exit: 2 };
  }
}
