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

#include "generated/app_config.h"
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

/* The brute-force limit per client address (IPv4, as the board serves), the simulator's rule
 * (host/tools/src/device/app/password.ts, GuessLimit, which states the owner's bound): an
 * address has APP_PAGE_WRONG_GUESSES wrong guesses free, then waits APP_PAGE_GUESS_DELAY_MS,
 * doubling with each further one up to APP_PAGE_GUESS_WINDOW_MS, from its last wrong guess; its
 * record is forgotten two windows after that guess, or by a right guess. A new address takes
 * the record whose last wrong guess is oldest. Past APP_PAGE_DEVICE_WRONG_GUESSES wrong guesses
 * device-wide within a window, each address has one free guess. A refused check computes no
 * PBKDF2 (which runs on the page server's task). Times are ms, wrapping. */
typedef struct app_password_guesser {
  uint32_t address;       /* IPv4, as the page server reads it from its socket */
  uint32_t wrong;         /* its wrong guesses; 0: a free record */
  uint32_t last_wrong_at; /* ms */
} app_password_guesser;
typedef struct app_password_guess_limit {
  app_password_guesser guessers[APP_PAGE_GUESS_ADDRESSES];
  uint32_t recent_at[APP_PAGE_DEVICE_WRONG_GUESSES]; /* a ring of the device's last wrong guesses' times */
  uint32_t recent;                                   /* wrong guesses ever, device-wide */
} app_password_guess_limit;
/* ms until a check from `address` may run (0: now), at time `now`. */
uint32_t app_password_guess_wait_ms(app_password_guess_limit *limit, uint32_t address, uint32_t now);
void app_password_guess_wrong(app_password_guess_limit *limit, uint32_t address, uint32_t now);
void app_password_guess_right(app_password_guess_limit *limit, uint32_t address);

#ifdef __cplusplus
}
#endif
#endif
