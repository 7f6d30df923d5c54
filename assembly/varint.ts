// The image's field codec: every body field is a u32 written as minimal ULEB128 and read
// as any ULEB128 of at most 5 bytes and 32 bits (docs/ABI.md, Image format). Reading never runs past its limit and never traps: a
// field that is malformed, too large or out of range only marks the read as refused,
// which restore() turns into IMAGE_FIELD after the whole body was read.

let cursor: usize = 0;
// Where reading stops; 1 once a read was refused (the cursor never stands at 1); 0 while
// writing, which is how value() in image.ts tells a save from a restore.
let limit: usize = 0;

/** Fields are written from now on. */
export function startWriting(): void {
  limit = 0;
}

/** True between startWriting and the next startReading. */
export function writing(): bool {
  return limit == 0;
}

/** Fields are read from now on, up to `end`. */
export function startReading(end: usize): void {
  limit = end;
}

/** The next field goes to (writing) or comes from (reading) `at`. */
export function seek(at: usize): void {
  cursor = at;
}

/** Where the next field goes (writing) or comes from (reading). */
export function position(): usize {
  return cursor;
}

/** Writes one field. */
export function put(value: u32): void {
  do {
    const byte = value & 0x7f;
    value >>>= 7;
    store<u8>(cursor++, value ? byte | 0x80 : byte); // the top bit set: more bytes follow
  } while (value);
}

/** Marks the read refused: a field out of range or inconsistent. */
export function refuse(): void {
  limit = 1;
}

/** Reads one field: at most 5 bytes and 32 bits, before the limit; else 0, refused. */
export function take(): u32 {
  let value: u32 = 0;
  for (let shift: u32 = 0; shift < 35 && cursor < limit; shift += 7) {
    const byte = <u32>load<u8>(cursor++);
    value |= (byte & 0x7f) << shift;
    // A byte below 0x80 ends the field; the fifth holds bits 28 to 31 only (below 16).
    if (!(byte >>> (shift == 28 ? 4 : 7))) return value;
  }
  refuse();
  return 0;
}

/** True when every field read was good and they ended exactly at the limit. */
export function readCleanly(): bool {
  return cursor == limit;
}
