// Anti-rollback: the version an uploaded module carries in its signed bytes, a custom
// section named "tickretry.version" holding a u32 little-endian (`npm run sign -- --version
// N` adds it before signing). A module without one is version 0. The device refuses a
// module below the highest version it accepted, as the sketch does
// (boards/esp32/src/module_signature.c, module_version, tested side by side).

export const VERSION_SECTION = "tickretry.version";

/** An unsigned LEB128 at `at`: its value and the offset after it, or undefined. */
function leb(bytes: Buffer, at: number): [number, number] | undefined {
  let v = 0;
  for (let shift = 0; shift < 35 && at < bytes.length; shift += 7) {
    const b = bytes[at++];
    v += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return [v, at];
  }
  return undefined;
}

/** The module's version, 0 without the section, -1 for bytes that are no module. */
export function moduleVersion(bytes: Buffer): number {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])))
    return -1;
  for (let at = 8; at < bytes.length;) {
    const id = bytes[at];
    const size = leb(bytes, at + 1);
    if (size === undefined || size[1] + size[0] > bytes.length) return -1;
    const [length, start] = size;
    const name = id === 0 ? leb(bytes, start) : undefined;
    if (
      name !== undefined &&
      name[0] === VERSION_SECTION.length &&
      start + length - name[1] === name[0] + 4
    ) {
      if (bytes.toString("latin1", name[1], name[1] + name[0]) === VERSION_SECTION) {
        return bytes.readUInt32LE(name[1] + name[0]);
      }
    }
    at = start + length;
  }
  return 0;
}
