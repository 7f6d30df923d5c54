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

#ifdef __cplusplus
}
#endif
#endif
