/* See module_signature.h. */
#include "module_signature.h"

#include <sodium.h>

module_signature_result module_signature_check(const uint8_t *signed_module, size_t length,
                                               const uint8_t public_key[32], size_t *module_length) {
  if (sodium_init() < 0) return MODULE_SIGNATURE_NO_CRYPTO;
  if (length <= MODULE_SIGNATURE_BYTES) return MODULE_SIGNATURE_TOO_SHORT;
  size_t n = length - MODULE_SIGNATURE_BYTES;
  if (crypto_sign_verify_detached(signed_module + n, signed_module, n, public_key) != 0) return MODULE_SIGNATURE_BAD;
  *module_length = n;
  return MODULE_SIGNATURE_OK;
}

const char *module_signature_meaning(module_signature_result result) {
  switch (result) {
    case MODULE_SIGNATURE_OK:
      return "signed by the build key";
    case MODULE_SIGNATURE_TOO_SHORT:
      return "too short to carry a signature";
    case MODULE_SIGNATURE_BAD:
      return "the signature is not the build key's (unsigned, tampered, or signed by another key)";
    default:
      return "libsodium did not start";
  }
}
