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

/* The record of `address` still in force (forgotten ones are cleared), or NULL. */
static app_password_guesser *guesser(app_password_guess_limit *limit, uint32_t address, uint32_t now) {
  for (size_t i = 0; i < APP_PAGE_GUESS_ADDRESSES; i++) {
    app_password_guesser *g = &limit->guessers[i];
    if (g->address != address || g->wrong == 0) continue;
    if (now - g->last_wrong_at < 2 * APP_PAGE_GUESS_WINDOW_MS) return g;
    g->wrong = 0;
    return NULL;
  }
  return NULL;
}

/* Wrong guesses each address has free: one while the device is flooded. */
static uint32_t free_guesses(const app_password_guess_limit *limit, uint32_t now) {
  if (limit->recent < APP_PAGE_DEVICE_WRONG_GUESSES) return APP_PAGE_WRONG_GUESSES;
  /* The oldest of the last APP_PAGE_DEVICE_WRONG_GUESSES: the ring's next slot. */
  uint32_t oldest = limit->recent_at[limit->recent % APP_PAGE_DEVICE_WRONG_GUESSES];
  return now - oldest < APP_PAGE_GUESS_WINDOW_MS ? 1 : APP_PAGE_WRONG_GUESSES;
}

static uint32_t delay_after(uint32_t wrong, uint32_t free) {
  if (wrong < free) return 0;
  uint32_t doublings = wrong - free;
  if (doublings >= 31 || (APP_PAGE_GUESS_DELAY_MS << doublings) >= APP_PAGE_GUESS_WINDOW_MS)
    return APP_PAGE_GUESS_WINDOW_MS;
  return APP_PAGE_GUESS_DELAY_MS << doublings;
}

uint32_t app_password_guess_wait_ms(app_password_guess_limit *limit, uint32_t address, uint32_t now) {
  const app_password_guesser *g = guesser(limit, address, now);
  if (g == NULL) return 0;
  uint32_t since = now - g->last_wrong_at, delay = delay_after(g->wrong, free_guesses(limit, now));
  return since >= delay ? 0 : delay - since;
}

/* The record for a wrong guess of `address`: its own, a free one, or else the one whose last
 * wrong guess is oldest. */
static app_password_guesser *record_for(app_password_guess_limit *limit, uint32_t address, uint32_t now) {
  app_password_guesser *g = guesser(limit, address, now);
  if (g != NULL) return g;
  app_password_guesser *oldest = &limit->guessers[0];
  for (size_t i = 0; i < APP_PAGE_GUESS_ADDRESSES; i++) {
    app_password_guesser *c = &limit->guessers[i];
    if (c->wrong == 0) return c;
    if (now - c->last_wrong_at > now - oldest->last_wrong_at) oldest = c;
  }
  return oldest;
}

void app_password_guess_wrong(app_password_guess_limit *limit, uint32_t address, uint32_t now) {
  limit->recent_at[limit->recent % APP_PAGE_DEVICE_WRONG_GUESSES] = now;
  limit->recent++;
  app_password_guesser *g = record_for(limit, address, now);
  if (g->address != address || g->wrong == 0) *g = (app_password_guesser){address, 0, now};
  g->wrong++;
  g->last_wrong_at = now;
}

void app_password_guess_right(app_password_guess_limit *limit, uint32_t address) {
  for (size_t i = 0; i < APP_PAGE_GUESS_ADDRESSES; i++)
    if (limit->guessers[i].address == address) limit->guessers[i].wrong = 0;
}
