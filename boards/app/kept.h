/* What guards the kept state in RTC memory and NVS: a CRC-32 (the IEEE polynomial, as
 * zlib's crc32) over every byte of it, so a torn or corrupt copy is refused whole rather
 * than taken up in part (bodies and slots included, not only the image). Board-free, so
 * test/boards/page-native.test.ts checks it against zlib. */
#ifndef APP_KEPT_H
#define APP_KEPT_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

uint32_t app_kept_crc32(const void *bytes, size_t length);

#ifdef __cplusplus
}
#endif
#endif
