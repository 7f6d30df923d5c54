/* The setup form's checks, as the simulator has them (host/tools/src/device/app/settings.ts): what the
 * firmware accepts before it writes Wi-Fi and upload settings to NVS. A form with any bad
 * field stores nothing. Board-free, so test/boards/page-native.test.ts runs it beside the
 * simulator's checks on the same inputs. */
#ifndef APP_SETTINGS_H
#define APP_SETTINGS_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum app_settings_problem {
  APP_SETTINGS_OK = 0,
  APP_SETTINGS_SSID_NOT_UTF8, /* bytes that are not UTF-8 */
  APP_SETTINGS_SSID_CONTROL,  /* NUL, CR, LF, ESC or another control character */
  APP_SETTINGS_SSID_LENGTH,   /* not 1 to 32 bytes */
  APP_SETTINGS_PASSWORD,      /* neither empty nor 8 to 63 printable ASCII characters */
  APP_SETTINGS_URL,           /* not an http:// URL with a host */
  APP_SETTINGS_URL_HTTPS      /* https://: refused (no stack for TLS on the upload task) */
} app_settings_problem;

/* The first problem of the form (fields may hold NUL bytes, hence the lengths). */
app_settings_problem app_settings_check(const char *ssid, size_t ssid_len, const char *password,
                                              size_t password_len, const char *url, size_t url_len);
/* The field a problem is about ("ssid", "password", "upstreamUrl"), and what to tell people. */
const char *app_settings_field(app_settings_problem problem);
const char *app_settings_meaning(app_settings_problem problem);

/* What the page sends back for credentials it was shown hidden: http:// then *** then @host and the rest. */
#define APP_SETTINGS_HIDDEN "***"

typedef enum app_settings_credentials_result {
  APP_SETTINGS_CREDENTIALS_OK = 0,      /* `out` holds the URL to store */
  APP_SETTINGS_CREDENTIALS_OTHER_HOST,  /* hidden credentials sent for another scheme, host or port */
  APP_SETTINGS_CREDENTIALS_TOO_LONG     /* the merged URL does not fit `out` */
} app_settings_credentials_result;

/* The URL to store for `given`: itself, or, when its userinfo is APP_SETTINGS_HIDDEN, with
 * the credentials of `stored` put back, only when both name the same scheme, host and port
 * (so hidden credentials never go to a host they were not typed for). */
app_settings_credentials_result app_settings_credentials(const char *stored, const char *given, char *out, size_t size);
/* What to tell people about a result that is not OK (the simulator's OTHER_HOST, word for word). */
const char *app_settings_credentials_meaning(app_settings_credentials_result result);

#ifdef __cplusplus
}
#endif
#endif
