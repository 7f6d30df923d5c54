// CRC-32 as in IEEE 802.3 and zlib (reflected, polynomial 0xEDB88320), computed bit by
// bit: a lookup table would take a quarter of the module's 4 KiB of memory, and an image
// is checked once per save or restore.

/** CRC-32 of `length` bytes at `at`; "123456789" gives 0xCBF43926. */
export function crc32(at: usize, length: usize): u32 {
  let crc: u32 = 0xffffffff;
  // One loop over the bits: a byte is folded in before its first bit.
  for (let bit: usize = 0; bit < length << 3; bit++) {
    if (!(bit & 7)) crc ^= load<u8>(at + (bit >> 3));
    crc = (crc >>> 1) ^ (0xedb88320 & (0 - (crc & 1)));
  }
  return ~crc;
}
