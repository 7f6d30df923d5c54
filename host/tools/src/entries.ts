// Growable tables of 32-byte entries, one buffer seen as doubles and as words, so that an
// entry's fields lie in one cache line: a table of a million devices' entries (the event
// calendar, the requests in flight) finds each one cold. Each table names its fields.

export const ENTRY_BYTES = 32;
/** An entry's doubles and words. */
export const DOUBLES = ENTRY_BYTES / 8;
export const WORDS = ENTRY_BYTES / 4;

/** A table's buffer as both views, and how many entries it has room for. */
export interface Entries {
  doubles: Float64Array<ArrayBuffer>;
  words: Int32Array<ArrayBuffer>;
  capacity: number;
}

/** The table `words` views, doubled (1024 entries at first), its entries kept. */
export function growEntries(words: Int32Array): Entries {
  const capacity = Math.max(1024, (2 * words.length) / WORDS);
  const buffer = new ArrayBuffer(capacity * ENTRY_BYTES);
  const grown = new Int32Array(buffer);
  grown.set(words);
  return { doubles: new Float64Array(buffer), words: grown, capacity };
}
