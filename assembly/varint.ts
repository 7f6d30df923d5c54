// The image's field codec: every body field is a u32 written as minimal ULEB128
// (docs/ABI.md, Image format). Reading never runs past its limit and never traps: a
// field that is malformed, too large or out of range only marks the read as refused,
// which restore() turns into IMAGE_FIELD after the whole body was read.

let cursor: usize = 0;
let limit: usize = 0;
let refused: bool = false;

/** Starts writing fields at `at`. */
export function startWriting(at: usize): void {
  cursor = at;
}

/** Starts reading the fields between `at` and `end`. */
export function startReading(at: usize, end: usize): void {
  cursor = at;
  limit = end;
  refused = false;
}

/** Where the next field goes (writing) or comes from (reading). */
export function position(): usize {
  return cursor;
}

/** Writes one field. */
export function put(value: u32): void {
  for (; value >= 0x80; value >>>= 7) store<u8>(cursor++, value | 0x80);
  store<u8>(cursor++, value);
}

/** Marks the read refused: a field out of range or inconsistent. */
export function refuse(): void {
  refused = true;
}

/** Reads one field: at most 5 bytes, 32 bits, minimal, before the limit; else 0, refused. */
export function take(): u32 {
  let value: u32 = 0;
  for (let shift: u32 = 0; shift < 35 && cursor < limit; shift += 7) {
    const byte = <u32>load<u8>(cursor++);
    value |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      if ((byte == 0 && shift > 0) || (shift == 28 && byte > 15)) break;
      return value;
    }
  }
  refused = true;
  return 0;
}

/** True when every field read was good and they ended exactly at the limit. */
export function readCleanly(): bool {
  return !refused && cursor == limit;
}
