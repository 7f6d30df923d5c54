// CRC-32 as docs/ABI.md ("Image") names it: the IEEE 802.3 / zlib CRC (reflected
// polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF), bit by bit through a table.

const TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

/** The CRC-32 of `bytes`, as a u32. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
