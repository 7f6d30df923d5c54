/* The sketch's MQTT uploads (build flag UPLOAD_MQTT) over esp-mqtt, the client the
 * arduino-esp32 core ships, with its own reconnect disabled: the module's broker session
 * decides when to connect. esp-mqtt calls its event handler on its own task, and the module
 * may be called from loop() only, so the handler (mqtt_session_event) just queues what it
 * saw in a single-producer, single-consumer ring; mqtt_session_apply, at the start of a
 * pass, turns it into the module's words:
 *   CONNECTED              the connect attempt's SUCCESS: the session is UP (then link_up,
 *                          so waiting uploads resume within their spread window);
 *   ERROR, refused         the connect attempt's outcome: PERMANENT for a refusal no retry
 *                          cures (protocol, client id, bad credentials), else TRANSIENT;
 *   DISCONNECTED           drop() when UP; TRANSIENT for a connect attempt that never got
 *                          there; every publish still waiting for its PUBACK AMBIGUOUS;
 *   PUBLISHED (msg_id)     the PUBACK: that upload attempt's SUCCESS.
 * Attempts' answers go back through the board's `finished` callback, as the HTTP ones do, so
 * the device loop reports them and keeps its late-answer bookkeeping. Nothing blocks:
 * publishes are enqueued (esp_mqtt_client_enqueue) and sent by esp-mqtt's task.
 * Status: written against the C API of ABI v3 (tickretry_drop, tickretry_link_up, from the
 * sessions branch) and type-checked there with gcc against test/boards/esp-mqtt-shim; no
 * target builds it until the module has sessions, and main.cpp does not call it yet
 * (boards/esp32/README.md, "MQTT uploads"). */
#ifndef MQTT_SESSION_H
#define MQTT_SESSION_H

#include <stdint.h>

#include "device_loop.h"
#include "mqtt_client.h"
#include "tickretry.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MQTT_SEEN_RING 32

typedef struct mqtt_seen {
  uint8_t kind;  /* what the handler saw (mqtt_session.c) */
  int32_t value; /* msg_id (PUBLISHED) or CONNACK code (refused) */
} mqtt_seen;

typedef struct mqtt_publish {
  int32_t handle, attempt; /* attempt 0: the entry is free */
  int msg_id;
} mqtt_publish;

typedef struct mqtt_session {
  esp_mqtt_client_handle_t client;
  int32_t handle;          /* the broker session's handle */
  int32_t connect_attempt; /* the connect attempt in flight; 0: none */
  uint8_t up, started;     /* the connection is up; esp_mqtt_client_start has run */
  uint32_t drops, reconnects, lost_events;
  mqtt_publish publishes[TICKRETRY_LIMIT_OPERATIONS];
  mqtt_seen ring[MQTT_SEEN_RING];
  volatile uint32_t head, tail; /* head written by esp-mqtt's task only, tail by loop() only */
} mqtt_session;

typedef void (*mqtt_finished_fn)(void *ctx, const device_result *r);

/* Binds a client (made with disable_auto_reconnect) to the session `handle` begun under the
 * broker policy; register mqtt_session_event for MQTT_EVENT_ANY with `s` as its argument. */
void mqtt_session_init(mqtt_session *s, esp_mqtt_client_handle_t client, int32_t handle);

/* esp-mqtt's event handler: runs on its task, only queues. */
void mqtt_session_event(void *arg, esp_event_base_t base, int32_t id, void *data);

/* poll handed out the session's connect attempt `attempt`: starts it without waiting. */
void mqtt_session_connect(mqtt_session *s, int32_t attempt, mqtt_finished_fn finished, void *ctx);

/* One upload attempt: enqueues a QoS 1 publish; when it cannot (no connection, a full
 * outbox) the attempt finishes TRANSIENT at once ("not sent"). */
void mqtt_session_publish(mqtt_session *s, int32_t handle, int32_t attempt, const char *topic, const char *payload,
                          mqtt_finished_fn finished, void *ctx);

/* At the start of a pass: applies everything the handler queued since the last one. */
void mqtt_session_apply(mqtt_session *s, uint32_t now, mqtt_finished_fn finished, void *ctx);

/* A refused CONNACK code as an outcome: PERMANENT when no retry can cure it. */
int32_t mqtt_connack_outcome(int code);

#ifdef __cplusplus
}
#endif
#endif
