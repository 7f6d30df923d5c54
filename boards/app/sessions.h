/* The application's supervised connections, as the module's sessions: the Wi-Fi station
 * always (wifi_session.c), and in an MQTT build the broker connection (the board's
 * mqtt_session.c over esp-mqtt). What they share with the kept state: the policy each
 * runs under and the handles kept beside the image. */
#ifndef APP_SESSIONS_H
#define APP_SESSIONS_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define APP_WIFI_POLICY 1
#define APP_BROKER_POLICY 2
#define APP_SESSION_COUNT 2

/* The sessions' handles, kept beside the image (kept.h's app_kept): 0 for none. */
typedef struct app_session_handles {
  int32_t wifi, broker;
} app_session_handles;

#ifdef __cplusplus
}
#endif
#endif
