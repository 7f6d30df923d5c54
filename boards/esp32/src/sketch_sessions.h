// The sketch's supervised connections: the Wi-Fi station (wifi_session.c) always, and with
// the build flag UPLOAD_MQTT the broker connection (mqtt_session.c over esp-mqtt). Each is
// a session of the module under a policy of its own, run through the same tickretry loop as
// the uploads: poll hands out its connect attempt, start_attempt passes it here, and its
// answer comes back through collect, a lost connection through `dropped`, the link's
// return through `link_up`: the rings are drained, and the module told, only inside a
// pass, from main.cpp's loop HAL.
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
// One upload attempt: a QoS 1 publish of `payload` on the broker settings' topic.
void sessions_publish(int32_t handle, int32_t attempt, const char *payload);
#endif

#endif
