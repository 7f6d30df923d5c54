// A numeric command-line option, checked: a bad value is a message naming the option,
// never a NaN that travels on.

/** `text` as a number from min to max (an integer unless `integer` is false); undefined when absent. */
export function numberOption(
  name: string,
  text: string | undefined,
  min: number,
  max: number,
  integer = true,
): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new Error(
      `--${name} wants ${integer ? "an integer" : "a number"} from ${min} to ${max}, got "${text}"`,
    );
  }
  return n;
}
