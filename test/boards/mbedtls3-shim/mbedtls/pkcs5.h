/* Stand-in for mbedTLS 3.6's mbedtls/pkcs5.h: PBKDF2 as the real header declares it. The old
 * mbedtls_pkcs5_pbkdf2_hmac (deprecated in 3.3) exists only without MBEDTLS_DEPRECATED_REMOVED,
 * which ESP-IDF 5 defines: a call to it is the break this stand-in exists to catch. */
#ifndef MBEDTLS_PKCS5_H
#define MBEDTLS_PKCS5_H
#include <stddef.h>
#include <stdint.h>

#include "mbedtls/build_info.h"
#include "mbedtls/md.h"

#ifdef __cplusplus
extern "C" {
#endif

int mbedtls_pkcs5_pbkdf2_hmac_ext(mbedtls_md_type_t md_type, const unsigned char *password, size_t plen,
                                  const unsigned char *salt, size_t slen, unsigned int iteration_count,
                                  uint32_t key_length, unsigned char *output);

#if defined(MBEDTLS_MD_C)
#if !defined(MBEDTLS_DEPRECATED_REMOVED)
int MBEDTLS_DEPRECATED mbedtls_pkcs5_pbkdf2_hmac(mbedtls_md_context_t *ctx, const unsigned char *password,
                                                 size_t plen, const unsigned char *salt, size_t slen,
                                                 unsigned int iteration_count, uint32_t key_length,
                                                 unsigned char *output);
#endif
#endif

#ifdef __cplusplus
}
#endif
#endif
