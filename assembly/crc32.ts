// CRC-32 as in IEEE 802.3 and zlib (reflected, polynomial 0xEDB88320), computed bit by
// bit: a lookup table would take a quarter of the module's 4 KiB of memory, and an image
// is checked once per save or restore.

/** CRC-32 of `length` bytes at `at`; "123456789" gives 0xCBF43926. */
export function crc32(at: usize, length: usize): u32 {
  let crc: u32 = 0xffffffff;
  for (const end = at + length; at < end; at++) {
    crc ^= load<u8>(at);
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & (0 - (crc & 1)));
  }
  return ~crc;
}
