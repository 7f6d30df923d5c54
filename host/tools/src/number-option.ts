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
  // Plain decimal only: Number() would also take " 80", "0x50", "0b1010000" and "8e1".
  const n = Number(text);
  if (!(integer ? /^[0-9]+$/ : /^[0-9]+(\.[0-9]+)?$/).test(text) || n < min || n > max) {
    throw new Error(
      `--${name} wants ${integer ? "an integer" : "a number"} from ${min} to ${max}, got "${text}"`,
    );
  }
  return n;
}
