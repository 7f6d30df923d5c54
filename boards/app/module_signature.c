/* See module_signature.h. */
#include "module_signature.h"

#include <sodium.h>
#include <string.h>

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

/* An unsigned LEB128 of at most 5 bytes at *at, below `end`; false when malformed. */
static int leb_u32(const uint8_t **at, const uint8_t *end, uint32_t *value) {
  uint32_t v = 0;
  for (int shift = 0; shift < 35 && *at < end; shift += 7) {
    uint8_t b = *(*at)++;
    v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *value = v;
      return 1;
    }
  }
  return 0;
}

int64_t module_version(const uint8_t *wasm, size_t length) {
  static const uint8_t header[8] = {0, 'a', 's', 'm', 1, 0, 0, 0};
  if (length < 8 || memcmp(wasm, header, 8) != 0) return -1;
  const uint8_t *at = wasm + 8, *end = wasm + length;
  size_t name_len = strlen(MODULE_VERSION_SECTION);
  while (at < end) {
    uint8_t id = *at++;
    uint32_t size, name_size;
    if (!leb_u32(&at, end, &size) || size > (size_t)(end - at)) return -1;
    const uint8_t *next = at + size, *name = at;
    if (id == 0 && leb_u32(&name, next, &name_size) && name_size == name_len && (size_t)(next - name) == name_len + 4 &&
        memcmp(name, MODULE_VERSION_SECTION, name_len) == 0) {
      const uint8_t *v = name + name_len;
      return (int64_t)((uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24);
    }
    at = next;
  }
  return 0;
}
