/* What the page asked, carried out by the loop between passes (as the simulator's
 * host/tools/src/device/asks.ts): the settings and the device password go to NVS here, never
 * from a page handler, and each ask is answered with the contract's status and message. */
#ifndef APP_ASKS_H
#define APP_ASKS_H
#include "app_hal.h"
#include "requests.h"
#ifdef __cplusplus
extern "C" {
#endif

/* NVS keys: the Wi-Fi station's, the upload URL, the device password's hash, and the failed
 * Wi-Fi connects in a row (boards/esp32/src/access_point.cpp). */
#define APP_SSID_KEY "ssid"
#define APP_WIFI_PASS_KEY "pass"
#define APP_URL_KEY "url"
#define APP_DEVICE_PASSWORD_KEY "devpw"
#define APP_WIFI_FAILS_KEY "wififails"

/* Carries out the ask waiting in `r`, if any, and answers it. Settings are checked first
 * (app_settings_check; hidden credentials put back from `stored_url` for their own host
 * only); a refusal names its field in the answer and stores nothing. New settings ask
 * for a restart (the station takes them at boot). */
void app_asks_apply(app_requests *r, const app_hal *hal, const char *stored_url);

/* The stores behind the asks, for a board whose page hands its asks over another way
 * (boards/esp32/src/page_loop.cpp): each returns the answer's status and sets its message.
 * Settings already checked (the URL with its hidden credentials put back) go to NVS, the
 * Wi-Fi fail count back to 0; the caller restarts on 200. A first setup (`first_setup`)
 * that finds a password set changes nothing (409). */
int app_asks_store_settings(const app_hal *hal, const char *ssid, const char *pass, const char *url,
                            const app_broker_settings *broker, const char **message);
int app_asks_store_password(const app_hal *hal, const char *hash, int first_setup, const char **message);

#ifdef __cplusplus
}
#endif
#endif
