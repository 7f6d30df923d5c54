/* The MQTT build's broker session (build flag UPLOAD_MQTT): what esp-mqtt's events mean to
 * the module, decided here, board-free; the client's calls (start, reconnect, enqueue,
 * disconnect) go through the HAL (app_hal.h), which the board implements over esp-mqtt
 * with its own reconnect disabled (boards/esp32/src/mqtt_link.c), so the session decides
 * when to connect. esp-mqtt calls its event handler on its own task, so the board's
 * handler only queues what it saw (mqtt_session_seen, session_events.h);
 * mqtt_session_apply, from the HAL's collect inside a pass, turns that into what the
 * tickretry loop tells the module:
 *   CONNECTED              the connect attempt's SUCCESS: the session is UP (then the link
 *                          is back, so waiting uploads resume within their spread window);
 *   ERROR, refused         the connect attempt's outcome: PERMANENT for a refusal no retry
 *                          cures (protocol, client id, bad credentials), THROTTLED for MQTT
 *                          5's "server busy" (0x89) and "connection rate exceeded" (0x9F),
 *                          else TRANSIENT;
 *   ERROR, transport       TRANSIENT: the TCP connect refused (the broker is down) or failed;
 *   DISCONNECTED           a drop when UP; for a connect attempt with no ERROR before it,
 *                          THROTTLED: esp-mqtt got through TCP but no CONNACK came within
 *                          its network timeout (APP_BROKER_SESSION_CONNACK_TIMEOUT_MS), a
 *                          broker too busy to answer (issue 36, item 6); every publish still
 *                          waiting for its PUBACK AMBIGUOUS;
 *   PUBLISHED (msg_id)     the PUBACK: that upload attempt's SUCCESS.
 * Nothing blocks: publishes are enqueued and sent by esp-mqtt's task. Built with gcc and
 * run against the real module and a fake esp-mqtt client by
 * test/boards/mqtt-session.test.ts; boards/esp32/src/sketch_sessions.cpp drives it. */
#ifndef MQTT_SESSION_H
#define MQTT_SESSION_H

#include <stdint.h>

#include "app_hal.h"
#include "session_events.h"
#include "tickretry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the board's event handler saw (the value: a msg_id, a CONNACK refusal code). */
enum mqtt_seen_kind { MQTT_SEEN_CONNECTED, MQTT_SEEN_DISCONNECTED, MQTT_SEEN_REFUSED, MQTT_SEEN_TRANSPORT_ERROR, MQTT_SEEN_PUBLISHED };

/* MQTT 3.1.1's CONNACK refusal codes (esp-mqtt's esp_mqtt_connect_return_code_t), and the
 * two MQTT 5 ones that mean a busy broker. */
enum {
  MQTT_CONNACK_REFUSED_PROTOCOL = 1,
  MQTT_CONNACK_REFUSED_ID_REJECTED = 2,
  MQTT_CONNACK_REFUSED_SERVER_UNAVAILABLE = 3,
  MQTT_CONNACK_REFUSED_BAD_USERNAME = 4,
  MQTT_CONNACK_REFUSED_NOT_AUTHORIZED = 5,
  MQTT_CONNACK_SERVER_BUSY = 0x89,   /* MQTT 5 reason codes */
  MQTT_CONNACK_RATE_EXCEEDED = 0x9F
};

typedef struct mqtt_publish {
  int32_t handle, attempt; /* attempt 0: the entry is free */
  int msg_id;
} mqtt_publish;

typedef struct mqtt_session {
  const app_hal *hal;      /* the client's calls: mqtt_start, mqtt_reconnect, mqtt_publish, mqtt_disconnect */
  int32_t handle;          /* the broker session's handle */
  int32_t connect_attempt; /* the connect attempt in flight; 0: none */
  uint8_t up, started;     /* the connection is up; esp_mqtt_client_start has run */
  int32_t refused;         /* the last CONNACK refusal code; 0: none */
  uint32_t drops, reconnects;
  uint8_t ended;     /* the session ended (the broker refused the login): no connect until it begins again */
  uint32_t ended_at; /* the tick it ended */
  mqtt_publish publishes[TICKRETRY_LIMIT_OPERATIONS];
  session_news news; /* a drop and a CONNECTED, for the HAL's `dropped` and `link_up` */
  session_ring ring;
} mqtt_session;

/* Binds the board's client (made with disable_auto_reconnect, reached through `hal`) to the
 * session `handle` begun under the broker policy. */
void mqtt_session_init(mqtt_session *s, const app_hal *hal, int32_t handle);

/* The board's event handler's side: runs on the client's task, only queues. */
void mqtt_session_seen(mqtt_session *s, enum mqtt_seen_kind kind, int32_t value);

/* poll handed out the session's connect attempt `attempt`: starts it without waiting. */
void mqtt_session_connect(mqtt_session *s, int32_t attempt, session_finished_fn finished, void *ctx);

/* One upload attempt: enqueues a QoS 1 publish; when it cannot (no connection, a full
 * outbox) the attempt finishes TRANSIENT at once ("not sent"). */
void mqtt_session_publish(mqtt_session *s, int32_t handle, int32_t attempt, const char *topic, const char *payload,
                          session_finished_fn finished, void *ctx);

/* The module timed out attempt `attempt` of `handle` (no CONNACK, no PUBACK): forgets it,
 * so that no answer of it is reported. 1 when it was this session's (the board then
 * abandons it in the tickretry loop), else 0. */
int mqtt_session_forget(mqtt_session *s, int32_t handle, int32_t attempt);

/* From the HAL's collect: applies everything the handler queued since the last call. */
void mqtt_session_apply(mqtt_session *s, session_finished_fn finished, void *ctx);

/* A refused login is not the end of the device: the session ends PERMANENT (the loop's END
 * for its handle), the client stops, and a new session begins on the same client once
 * APP_BROKER_SESSION_REFUSED_HOLD_MS (boards/app/config.json) passed; on a board, new
 * broker settings restart it, which begins one at once. */
void mqtt_session_ended(mqtt_session *s, uint32_t now);
/* ms until an ended session may begin again (0 once the hold is over, or while none ended). */
uint32_t mqtt_session_hold_left(const mqtt_session *s, uint32_t now);
/* 1 when the session ended and its hold is over: begin a new one and rebind. */
int mqtt_session_resume_due(const mqtt_session *s, uint32_t now);
/* The new session `handle` on the same client: whether the client was started, the drops
 * and reconnects, and the events queued, carry over. */
void mqtt_session_rebind(mqtt_session *s, int32_t handle);

/* A refused CONNACK code as an outcome: PERMANENT when no retry can cure it. */
int32_t mqtt_connack_outcome(int code);

#ifdef __cplusplus
}
#endif
#endif
