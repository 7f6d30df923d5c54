/* The call arduino-esp32 2.x's sketch made, for test/boards/sketch.test.ts: it compiles against
 * mbedTLS 2.28 and must not under ESP-IDF 5's configuration of mbedTLS 3. */
#include <mbedtls/md.h>
#include <mbedtls/pkcs5.h>

int removed_call(mbedtls_md_context_t *md, unsigned char out[32]);
int removed_call(mbedtls_md_context_t *md, unsigned char out[32]) {
  return mbedtls_pkcs5_pbkdf2_hmac(md, (const unsigned char *)"pw", 2, (const unsigned char *)"salt", 4, 1, 32, out);
}
