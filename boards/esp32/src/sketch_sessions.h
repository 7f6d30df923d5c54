// The sketch's supervised connections, as the board drives them: the Wi-Fi station always,
// and with the build flag UPLOAD_MQTT the broker connection over esp-mqtt. The sessions'
// state and decisions are the application's (../app/sessions.h); these functions add the
// board's calls (WiFi.begin, the core's Wi-Fi events, esp-mqtt's client) and are what
// main.cpp's loop HAL, the page server and the access point call.
#ifndef SKETCH_SESSIONS_H
#define SKETCH_SESSIONS_H

#include <stdint.h>

#include "app_hal.h"
#include "broker.h"
#include "sessions.h"
#include "status.h"
#include "tickretry_loop.h"

// Sets the sessions' policies; after tickretry_init, before any begin.
bool sessions_set_policies();
// Takes the kept sessions back after a restore when the module still has them live, else
// begins them. Without an SSID there is no station, and so no session at all.
void sessions_start(tickretry_loop *loop, app_session_handles *kept, const char *ssid, const char *pass,
                    const app_broker_settings *broker, uint32_t now);
// The HAL's start_attempt for a session's handle: true when it was one (and started).
bool sessions_start_attempt(int32_t handle, int32_t attempt);
// The HAL's collect, before the uploads': applies what the Wi-Fi and MQTT event tasks
// queued, then takes one session answer, or an MQTT upload's.
int sessions_collect(tickretry_loop_result *out);
// The HAL's `dropped`: 1 and the handle of a session whose connection was lost, or 0.
int sessions_dropped(int32_t *handle);
// The HAL's `link_up`: whether the station got its IP or the broker its CONNACK since.
int sessions_link_up();
// The tickretry loop's events: a timed-out attempt is forgotten (and abandoned), and a
// session's end kept for the page.
void sessions_see(tickretry_loop *loop, const tickretry_loop_event *event);
// Connect attempts since the station last had its IP that got none (the access point's cue).
uint32_t sessions_wifi_failed_in_row();
bool sessions_wifi_up();
// The sessions as the status shows them, into `out` (APP_SESSION_COUNT long); how many.
uint32_t sessions_status(status_session *out, uint32_t now);

#if UPLOAD_MQTT
// True while the broker session is UP: uploads begin only then (the gate of docs/device.md).
bool sessions_broker_up();
// From the pass: a broker session the broker refused begins again once its hold is over
// (its handle into the kept state); true while it is still held, so no upload can begin.
bool sessions_broker_held(tickretry_loop *loop, uint32_t now);
// One upload attempt: a QoS 1 publish of `payload` on the broker settings' topic.
void sessions_publish(int32_t handle, int32_t attempt, const char *payload);
#endif

#endif
