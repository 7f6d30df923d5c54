/* An uploaded scheduler module is accepted only with the build key's signature: the
 * upload is the module's bytes followed by a 64-byte Ed25519 signature over them
 * (`npm run sign`). libsodium checks it (mbedTLS has no Ed25519): ESP-IDF 4.4 ships it as a
 * component (arduino-esp32 2.x), arduino-esp32 3.x bundles it again from 3.0.2 on, plain
 * ESP-IDF 5 takes it from the component registry (espressif/libsodium in idf_component.yml);
 * Debian packages it as libsodium-dev for the native tests. docs/choices.md says why. */
#ifndef MODULE_SIGNATURE_H
#define MODULE_SIGNATURE_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define MODULE_SIGNATURE_BYTES 64

typedef enum module_signature_result {
  MODULE_SIGNATURE_OK = 0,
  MODULE_SIGNATURE_TOO_SHORT = -1, /* no room for a signature */
  MODULE_SIGNATURE_BAD = -2,       /* unsigned, tampered, or signed by another key */
  MODULE_SIGNATURE_NO_CRYPTO = -3  /* libsodium failed to start */
} module_signature_result;

/* Checks signed[0 .. length) against the 32-byte public key; on MODULE_SIGNATURE_OK,
 * *module_length is the length of the module itself (the signature is the rest). */
module_signature_result module_signature_check(const uint8_t *signed_module, size_t length,
                                               const uint8_t public_key[32], size_t *module_length);
/* For people: what a result means. */
const char *module_signature_meaning(module_signature_result result);

/* Anti-rollback: a module's version is a custom section named MODULE_VERSION_SECTION whose
 * content is a u32, little-endian (`npm run sign -- --version N` adds it before signing, so
 * the signature covers it); a module without one is version 0. A board refuses a module
 * whose version is below the highest it accepted (kept in NVS), as the simulator does.
 * -1 for bytes that are no well-formed module header and sections. */
#define MODULE_VERSION_SECTION "tickretry.version"
int64_t module_version(const uint8_t *wasm, size_t length);

#ifdef __cplusplus
}
#endif
#endif
