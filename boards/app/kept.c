/* See kept.h. Bitwise, table-free: a few hundred bytes of flash matter more here
 * than the microseconds a 3 KiB state costs. */
#include "kept.h"

uint32_t app_kept_crc32(const void *bytes, size_t length) {
  const uint8_t *p = (const uint8_t *)bytes;
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < length; i++) {
    crc ^= p[i];
    for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}
