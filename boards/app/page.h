/* The setup page's decisions, apart from the server that carries them (the board's
 * page_server.cpp reads the request's fields and sends what these say): the guards every
 * route of the contract passes (the Host, the origin of a post, the device password under
 * the guess limit, the module's size) and the answers' JSON. */
#ifndef APP_PAGE_H
#define APP_PAGE_H
#include <stddef.h>
#include <stdint.h>

#include "password.h"
#ifdef __cplusplus
extern "C" {
#endif

#define APP_PAGE_MODULE_LIMIT (64 * 1024)
#define APP_PAGE_ANSWER_BYTES 1024

/* Only names of this device reach it: its own addresses (no DNS rebinding). `host` is the
 * Host header, with or without a port. */
int app_page_host_allowed(const char *host, const char *ap_ip, const char *local_ip);
/* A browser says a post comes from this page (Sec-Fetch-Site, then Origin, else Referer).
 * With the Host checked first, a rebinding page cannot make its own name pass here. */
int app_page_same_origin(const char *host, const char *fetch_site, const char *origin, const char *referer);

/* Why a guard refused: the status, the contract's message, and for 429 a Retry-After. */
typedef struct app_page_refusal {
  int status;
  const char *error;
  uint32_t retry_after_s; /* 0: no header */
} app_page_refusal;

/* The device password of a post from client `address` (IPv4), under the brute-force limit
 * at `now` (ms): a check the limit refuses costs no PBKDF2, so a flood of guesses does not
 * hold up the server. 1 when it passes, else 0 and why in `refusal`. */
int app_page_password_given(app_password_guess_limit *guesses, uint32_t address, uint32_t now, const char *stored,
                            const char *given, app_page_refusal *refusal);
/* A module upload's size, as its pieces arrive: 1 while `have` + `more` fits the limit. */
int app_page_module_fits(size_t have, size_t more);
/* A field of an application/x-www-form-urlencoded body, decoded ('+' a space, %XX a byte;
 * the value may hold NUL bytes, hence its length). */
typedef struct app_page_field {
  const char *name, *value;
  size_t value_len;
} app_page_field;
#define APP_PAGE_FORM_FIELDS 16
typedef struct app_page_form {
  app_page_field fields[APP_PAGE_FORM_FIELDS]; /* in the body's order; more are not read */
  size_t count;
} app_page_form;
/* Decodes `body` (`length` bytes, with room for one more) in place into `form`. */
void app_page_form_parse(char *body, size_t length, app_page_form *form);
/* The first field named `name`, or NULL (URLSearchParams.get). */
const app_page_field *app_page_form_get(const app_page_form *form, const char *name);
/* "Deep sleep for N s": N when the field (`length` bytes, NULs included) is 1 to 3600 in
 * plain decimal digits, else 0. */
uint32_t app_page_sleep_seconds(const char *text, size_t length);
/* The answer's JSON, {"ok":true,"message":...} or {"ok":false,"error":...} by status;
 * its length (cut at `size` - 1). */
size_t app_page_answer_json(int status, const char *text, char *out, size_t size);
/* The upload URL as it may be shown: credentials replaced by "***" (never echoed). */
void app_page_without_credentials(const char *url, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
