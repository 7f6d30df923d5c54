/* The setup form's checks, as the simulator has them (host/tools/src/device/settings.ts): what the
 * firmware accepts before it writes Wi-Fi and upload settings to NVS. A form with any bad
 * field stores nothing. Board-free, so test/boards/page-native.test.ts runs it beside the
 * simulator's checks on the same inputs. */
#ifndef DEVICE_SETTINGS_H
#define DEVICE_SETTINGS_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum device_settings_problem {
  DEVICE_SETTINGS_OK = 0,
  DEVICE_SETTINGS_SSID_NOT_UTF8, /* bytes that are not UTF-8 */
  DEVICE_SETTINGS_SSID_CONTROL,  /* NUL, CR, LF, ESC or another control character */
  DEVICE_SETTINGS_SSID_LENGTH,   /* not 1 to 32 bytes */
  DEVICE_SETTINGS_PASSWORD,      /* neither empty nor 8 to 63 printable ASCII characters */
  DEVICE_SETTINGS_URL            /* not an http:// or https:// URL with a host */
} device_settings_problem;

/* The first problem of the form (fields may hold NUL bytes, hence the lengths). */
device_settings_problem device_settings_check(const char *ssid, size_t ssid_len, const char *password,
                                              size_t password_len, const char *url, size_t url_len);
/* The field a problem is about ("ssid", "password", "upstreamUrl"), and what to tell people. */
const char *device_settings_field(device_settings_problem problem);
const char *device_settings_meaning(device_settings_problem problem);

/* What the page sends back for credentials it was shown hidden: http:// then *** then @host and the rest. */
#define DEVICE_SETTINGS_HIDDEN "***"

typedef enum device_credentials {
  DEVICE_CREDENTIALS_OK = 0,      /* `out` holds the URL to store */
  DEVICE_CREDENTIALS_OTHER_HOST,  /* hidden credentials sent for another scheme, host or port */
  DEVICE_CREDENTIALS_TOO_LONG     /* the merged URL does not fit `out` */
} device_credentials;

/* The URL to store for `given`: itself, or, when its userinfo is DEVICE_SETTINGS_HIDDEN, with
 * the credentials of `stored` put back, only when both name the same scheme, host and port
 * (so hidden credentials never go to a host they were not typed for). */
device_credentials device_settings_credentials(const char *stored, const char *given, char *out, size_t size);
/* What to tell people about a result that is not OK (the simulator's OTHER_HOST, word for word). */
const char *device_settings_credentials_meaning(device_credentials result);

#ifdef __cplusplus
}
#endif
#endif
