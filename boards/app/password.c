/* See app_password.h. The hashing is mbedTLS's; the comparison is libsodium's
 * constant-time sodium_memcmp. */
#include "password.h"

#include <mbedtls/md.h>
#include <mbedtls/pkcs5.h>
#include <mbedtls/version.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_password_acceptable(const char *password) {
  size_t n = strlen(password);
  if (n < 8 || n > 64) return 0;
  for (size_t i = 0; i < n; i++)
    if (password[i] < 0x20 || password[i] > 0x7e) return 0;
  return 1;
}

/* mbedTLS 3.3 added the _ext form and deprecated the context form; ESP-IDF 5 (mbedTLS 3.x)
 * defines MBEDTLS_DEPRECATED_REMOVED, so there only _ext exists. IDF 4.4 ships 2.28, which
 * has only the context form, and IDF 5.0's 3.2 still has it. */
#if MBEDTLS_VERSION_NUMBER >= 0x03030000
static int pbkdf2(const char *password, const uint8_t *salt, size_t salt_len, uint32_t iterations,
                  uint8_t *out, size_t out_len) {
  int r = mbedtls_pkcs5_pbkdf2_hmac_ext(MBEDTLS_MD_SHA256, (const unsigned char *)password, strlen(password), salt,
                                        salt_len, iterations, (uint32_t)out_len, out);
  return r == 0 ? 0 : -1;
}
#else
static int pbkdf2(const char *password, const uint8_t *salt, size_t salt_len, uint32_t iterations,
                  uint8_t *out, size_t out_len) {
  mbedtls_md_context_t md;
  mbedtls_md_init(&md);
  int r = mbedtls_md_setup(&md, mbedtls_md_info_from_type(MBEDTLS_MD_SHA256), 1);
  if (r == 0)
    r = mbedtls_pkcs5_pbkdf2_hmac(&md, (const unsigned char *)password, strlen(password), salt, salt_len,
                                  iterations, (uint32_t)out_len, out);
  mbedtls_md_free(&md);
  return r == 0 ? 0 : -1;
}
#endif

static void to_hex(const uint8_t *bytes, size_t n, char *out) {
  sodium_bin2hex(out, 2 * n + 1, bytes, n);
}

int app_password_hash(const char *password, const uint8_t salt[APP_PASSWORD_SALT_BYTES], char *out,
                         size_t out_size) {
  uint8_t hash[APP_PASSWORD_HASH_BYTES];
  char salt_hex[2 * APP_PASSWORD_SALT_BYTES + 1], hash_hex[2 * APP_PASSWORD_HASH_BYTES + 1];
  if (pbkdf2(password, salt, APP_PASSWORD_SALT_BYTES, APP_PASSWORD_ITERATIONS, hash, sizeof hash) != 0)
    return -1;
  to_hex(salt, APP_PASSWORD_SALT_BYTES, salt_hex);
  to_hex(hash, sizeof hash, hash_hex);
  int n = snprintf(out, out_size, "pbkdf2-sha256$%u$%s$%s", APP_PASSWORD_ITERATIONS, salt_hex, hash_hex);
  return n > 0 && (size_t)n < out_size ? 0 : -1;
}

int app_password_check(const char *stored, const char *password) {
  char copy[APP_PASSWORD_STORED_MAX];
  if (strlen(stored) >= sizeof copy) return 0;
  strcpy(copy, stored);
  char *scheme = strtok(copy, "$"), *iterations = strtok(NULL, "$"), *salt_hex = strtok(NULL, "$"),
       *hash_hex = strtok(NULL, "$");
  if (!scheme || !iterations || !salt_hex || !hash_hex || strcmp(scheme, "pbkdf2-sha256") != 0) return 0;
  uint8_t salt[64], expected[APP_PASSWORD_HASH_BYTES], got[APP_PASSWORD_HASH_BYTES];
  size_t salt_len = 0, hash_len = 0;
  if (sodium_hex2bin(salt, sizeof salt, salt_hex, strlen(salt_hex), NULL, &salt_len, NULL) != 0) return 0;
  if (sodium_hex2bin(expected, sizeof expected, hash_hex, strlen(hash_hex), NULL, &hash_len, NULL) != 0 ||
      hash_len != sizeof expected)
    return 0;
  unsigned long rounds = strtoul(iterations, NULL, 10);
  if (rounds == 0 || rounds > 1000000) return 0;
  if (pbkdf2(password, salt, salt_len, (uint32_t)rounds, got, sizeof got) != 0) return 0;
  return sodium_memcmp(got, expected, sizeof got) == 0;
}

uint32_t app_password_guess_wait_ms(const app_password_guess_limit *limit, uint32_t now) {
  if (limit->wrong < APP_PASSWORD_GUESS_MAX) return 0;
  /* The oldest of the last APP_PASSWORD_GUESS_MAX wrong guesses: the ring's next slot. */
  uint32_t age = now - limit->wrong_at[limit->wrong % APP_PASSWORD_GUESS_MAX];
  return age >= APP_PASSWORD_GUESS_WINDOW_MS ? 0 : APP_PASSWORD_GUESS_WINDOW_MS - age;
}

void app_password_guess_wrong(app_password_guess_limit *limit, uint32_t now) {
  limit->wrong_at[limit->wrong % APP_PASSWORD_GUESS_MAX] = now;
  limit->wrong++;
}
