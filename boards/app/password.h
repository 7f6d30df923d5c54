/* The device password as the firmware keeps it: never the password, only a salted
 * PBKDF2-HMAC-SHA256 hash in the stored form "pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>",
 * the same form the simulator keeps (host/tools/src/device/app/password.ts). mbedTLS computes it: the
 * ESP32's frameworks ship it (with the SHA hardware): 2.28 in arduino-esp32 2.x (ESP-IDF 4.4),
 * as Debian's libmbedtls-dev for the native tests; 3.x in ESP-IDF 5 and arduino-esp32 3.x,
 * whose PBKDF2 call differs (password.c picks it by MBEDTLS_VERSION_NUMBER). */
#ifndef APP_PASSWORD_H
#define APP_PASSWORD_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define APP_PASSWORD_ITERATIONS 10000u
#define APP_PASSWORD_SALT_BYTES 16
#define APP_PASSWORD_HASH_BYTES 32
/* "pbkdf2-sha256$" + up to 10 digits + "$" + 32 hex + "$" + 64 hex + NUL */
#define APP_PASSWORD_STORED_MAX 128

/* 1 when password is 8 to 64 printable ASCII characters (the rule the simulator has). */
int app_password_acceptable(const char *password);
/* Writes the stored form of password with the given salt into out; 0, or -1 on failure. */
int app_password_hash(const char *password, const uint8_t salt[APP_PASSWORD_SALT_BYTES], char *out,
                         size_t out_size);
/* 1 when password matches the stored form (compared in constant time), 0 otherwise. */
int app_password_check(const char *stored, const char *password);

/* The brute-force limit, as the simulator's (host/tools/src/device/app/password.ts): after
 * APP_PASSWORD_GUESS_MAX wrong guesses within APP_PASSWORD_GUESS_WINDOW_MS every check is refused
 * without computing PBKDF2 (on a board, on the page server's task) until the oldest ages out. */
#define APP_PASSWORD_GUESS_MAX 5
#define APP_PASSWORD_GUESS_WINDOW_MS 60000u
typedef struct app_password_guess_limit {
  uint32_t wrong_at[APP_PASSWORD_GUESS_MAX]; /* a ring of the last wrong guesses' times, ms */
  uint32_t wrong;                      /* wrong guesses ever */
} app_password_guess_limit;
/* ms until a check may run (0: now), at time `now` (ms, wrapping). */
uint32_t app_password_guess_wait_ms(const app_password_guess_limit *limit, uint32_t now);
void app_password_guess_wrong(app_password_guess_limit *limit, uint32_t now);

#ifdef __cplusplus
}
#endif
#endif
