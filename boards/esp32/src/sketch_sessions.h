// The board's side of the supervised connections: the sessions' state and decisions are the
// application's (../app/sessions.h, run by ../app/device.c); these functions add the board's
// calls, WiFi.begin and the core's Wi-Fi events for the station, esp-mqtt's client for the
// broker (board_hal.cpp gives them to the application as the HAL's wifi_begin and
// mqtt_bind), and are what the page and the access point read of the sessions.
#ifndef SKETCH_SESSIONS_H
#define SKETCH_SESSIONS_H

#include <stddef.h>
#include <stdint.h>

#include "app_hal.h"
#include "broker.h"
#include "sessions.h"
#include "status.h"

// The device's sessions, before it starts them.
void sessions_attach(app_sessions *sessions);
// The HAL's wifi_begin: WiFi.begin, which returns at once (0: refused); GOT_IP or
// DISCONNECTED says later how it went.
int sessions_wifi_begin(void *ctx, const char *ssid, const char *pass);
#if UPLOAD_MQTT
// The HAL's mqtt_bind: esp-mqtt's client for the settings (one for the boot), its events
// into the broker session; 0 and why when esp-mqtt has none.
int sessions_mqtt_bind(void *ctx, const app_broker_settings *settings, mqtt_session *session, char *why, size_t size);
#endif
// Connect attempts since the station last had its IP that got none (the access point's cue).
uint32_t sessions_wifi_failed_in_row();
bool sessions_wifi_up();
// The sessions as the status shows them, into `out` (APP_SESSION_COUNT long); how many.
uint32_t sessions_status(status_session *out, uint32_t now);

#endif
