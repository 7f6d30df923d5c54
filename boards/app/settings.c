/* See app_settings.h. */
#include "settings.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* UTF-8 as RFC 3629 has it: no overlong forms, no surrogates, nothing past U+10FFFF. */
static int utf8_valid(const uint8_t *s, size_t n) {
  static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
  for (size_t i = 0; i < n;) {
    uint8_t c = s[i];
    size_t extra = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;
    if (extra == 4 || n - i <= extra) return 0;
    uint32_t cp = extra == 0 ? c : c & (0x3fu >> extra);
    for (size_t k = 1; k <= extra; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return 0;
      cp = cp << 6 | (s[i + k] & 0x3fu);
    }
    if (cp < least[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    i += extra + 1;
  }
  return 1;
}

/* http://, then a host (not empty), and no spaces or control characters. */
static int url_acceptable(const char *url, size_t n) {
  size_t scheme = 7;
  if (n < scheme || memcmp(url, "http://", scheme) != 0 || n == scheme || strchr("/?#@:", url[scheme])) return 0;
  for (size_t i = 0; i < n; i++)
    if ((uint8_t)url[i] <= 0x20 || (uint8_t)url[i] == 0x7f) return 0;
  return 1;
}

app_settings_problem app_settings_check(const char *ssid, size_t ssid_len, const char *password,
                                              size_t password_len, const char *url, size_t url_len) {
  const uint8_t *s = (const uint8_t *)ssid;
  if (!utf8_valid(s, ssid_len)) return APP_SETTINGS_SSID_NOT_UTF8;
  for (size_t i = 0; i < ssid_len; i++)
    if (s[i] < 0x20 || s[i] == 0x7f) return APP_SETTINGS_SSID_CONTROL;
  if (ssid_len < 1 || ssid_len > 32) return APP_SETTINGS_SSID_LENGTH;
  if (password_len != 0) {
    if (password_len < 8 || password_len > 63) return APP_SETTINGS_PASSWORD;
    for (size_t i = 0; i < password_len; i++)
      if (password[i] < 0x20 || password[i] > 0x7e) return APP_SETTINGS_PASSWORD;
  }
  /* https would need about 12 KiB of stack for mbedTLS on the upload task, which has 8 KiB. */
  if (url_len >= 8 && memcmp(url, "https://", 8) == 0) return APP_SETTINGS_URL_HTTPS;
  if (!url_acceptable(url, url_len)) return APP_SETTINGS_URL;
  return APP_SETTINGS_OK;
}

/* What the page shows for each problem: the field it marks and the sentence it says. */
static const struct {
  const char *field;
  const char *meaning;
} PROBLEMS[] = {
    [APP_SETTINGS_OK] = {"", ""},
    [APP_SETTINGS_SSID_NOT_UTF8] = {"ssid", "SSID must be UTF-8 text; these bytes are not."},
    [APP_SETTINGS_SSID_CONTROL] = {"ssid", "SSID must not contain control characters (NUL, CR, LF, ESC, ...)."},
    [APP_SETTINGS_SSID_LENGTH] = {"ssid", "SSID must be 1 to 32 bytes."},
    [APP_SETTINGS_PASSWORD] = {"password",
                                  "Password must be empty (an open network) or 8 to 63 printable ASCII characters."},
    [APP_SETTINGS_URL] = {"upstreamUrl", "Upstream URL must be an http:// URL."},
    [APP_SETTINGS_URL_HTTPS] = {"upstreamUrl", "Upstream URL must be an http:// URL: this board refuses https://, because its upload task's 8 KiB stack has no room for TLS."},
};

/* A problem past the table (none is) reads as the last one. */
#define PROBLEM(p) PROBLEMS[(p) <= APP_SETTINGS_URL_HTTPS ? (p) : APP_SETTINGS_URL_HTTPS]

const char *app_settings_field(app_settings_problem problem) { return PROBLEM(problem).field; }

const char *app_settings_meaning(app_settings_problem problem) { return PROBLEM(problem).meaning; }

/* The authority of `url` after its userinfo (host and port), as a span; false without one. */
static int authority(const char *url, const char **start, size_t *len, const char **userinfo_end) {
  const char *scheme = strstr(url, "://");
  if (!scheme) return 0;
  const char *from = scheme + 3;
  size_t span = strcspn(from, "/?#");
  const char *at = memchr(from, '@', span);
  *userinfo_end = at;
  *start = at ? at + 1 : from;
  *len = span - (size_t)(*start - from);
  return 1;
}

app_settings_credentials_result app_settings_credentials(const char *stored, const char *given, char *out, size_t size) {
  const char *scheme = strstr(given, "://");
  size_t hidden = strlen(APP_SETTINGS_HIDDEN);
  if (!scheme || strncmp(scheme + 3, APP_SETTINGS_HIDDEN "@", hidden + 1) != 0) {
    return snprintf(out, size, "%s", given) < (int)size ? APP_SETTINGS_CREDENTIALS_OK : APP_SETTINGS_CREDENTIALS_TOO_LONG;
  }
  const char *a, *b, *a_at, *b_at;
  size_t a_len, b_len;
  const char *stored_scheme = strstr(stored, "://");
  int same = stored_scheme && authority(stored, &a, &a_len, &a_at) && authority(given, &b, &b_len, &b_at) &&
             stored_scheme - stored == scheme - given && strncmp(stored, given, (size_t)(scheme - given)) == 0 &&
             a_len == b_len && strncmp(a, b, a_len) == 0;
  if (!same) return APP_SETTINGS_CREDENTIALS_OTHER_HOST;
  /* The stored userinfo (none: the URL goes without credentials), then the rest of `given`. */
  int userinfo = a_at ? (int)(a_at + 1 - (stored_scheme + 3)) : 0;
  int n = snprintf(out, size, "%.*s%.*s%s", (int)(scheme + 3 - given), given, userinfo, stored_scheme + 3,
                   scheme + 3 + hidden + 1);
  return n >= 0 && n < (int)size ? APP_SETTINGS_CREDENTIALS_OK : APP_SETTINGS_CREDENTIALS_TOO_LONG;
}

const char *app_settings_credentials_meaning(app_settings_credentials_result result) {
  return result == APP_SETTINGS_CREDENTIALS_OTHER_HOST
             ? "The hidden credentials belong to another scheme, host or port; type them again for this URL."
             : result == APP_SETTINGS_CREDENTIALS_TOO_LONG ? "Upstream URL is too long." : "";
}
