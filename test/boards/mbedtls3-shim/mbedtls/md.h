/* Stand-in for mbedTLS 3.6's mbedtls/md.h: the declarations the application's files use, as
 * the real header has them. */
#ifndef MBEDTLS_MD_H
#define MBEDTLS_MD_H
#include <stddef.h>

#include "mbedtls/build_info.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  MBEDTLS_MD_NONE = 0,
  MBEDTLS_MD_MD5 = 0x03,
  MBEDTLS_MD_RIPEMD160 = 0x04,
  MBEDTLS_MD_SHA1 = 0x05,
  MBEDTLS_MD_SHA224 = 0x08,
  MBEDTLS_MD_SHA256 = 0x09,
  MBEDTLS_MD_SHA384 = 0x0a,
  MBEDTLS_MD_SHA512 = 0x0b,
  MBEDTLS_MD_SHA3_224 = 0x10,
  MBEDTLS_MD_SHA3_256 = 0x11,
  MBEDTLS_MD_SHA3_384 = 0x12,
  MBEDTLS_MD_SHA3_512 = 0x13,
} mbedtls_md_type_t;

typedef struct mbedtls_md_info_t mbedtls_md_info_t;

typedef struct mbedtls_md_context_t {
  const mbedtls_md_info_t *MBEDTLS_PRIVATE(md_info);
  void *MBEDTLS_PRIVATE(md_ctx);
#if defined(MBEDTLS_MD_C)
  void *MBEDTLS_PRIVATE(hmac_ctx);
#endif
} mbedtls_md_context_t;

const mbedtls_md_info_t *mbedtls_md_info_from_type(mbedtls_md_type_t md_type);
void mbedtls_md_init(mbedtls_md_context_t *ctx);
void mbedtls_md_free(mbedtls_md_context_t *ctx);
MBEDTLS_CHECK_RETURN_TYPICAL
int mbedtls_md_setup(mbedtls_md_context_t *ctx, const mbedtls_md_info_t *md_info, int hmac);

#ifdef __cplusplus
}
#endif
#endif
