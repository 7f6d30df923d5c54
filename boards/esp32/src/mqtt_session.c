/* esp-mqtt's events onto the module (mqtt_session.h says which becomes what). Built only
 * with the build flag UPLOAD_MQTT (PlatformIO compiles every file of src/). */
#if UPLOAD_MQTT
#include "mqtt_session.h"

#include <string.h>

enum { SEEN_CONNECTED, SEEN_DISCONNECTED, SEEN_REFUSED, SEEN_TRANSPORT_ERROR, SEEN_PUBLISHED };

int32_t mqtt_connack_outcome(int code) {
  switch (code) {
    case MQTT_CONNECTION_REFUSE_PROTOCOL:
    case MQTT_CONNECTION_REFUSE_ID_REJECTED:
    case MQTT_CONNECTION_REFUSE_BAD_USERNAME:
    case MQTT_CONNECTION_REFUSE_NOT_AUTHORIZED:
      return TICKRETRY_OUTCOME_PERMANENT;
    default:
      return TICKRETRY_OUTCOME_TRANSIENT; /* server unavailable: it may come back */
  }
}

void mqtt_session_init(mqtt_session *s, esp_mqtt_client_handle_t client, int32_t handle) {
  memset(s, 0, sizeof *s);
  s->client = client;
  s->handle = handle;
}

void mqtt_session_event(void *arg, esp_event_base_t base, int32_t id, void *data) {
  (void)base;
  mqtt_session *s = (mqtt_session *)arg;
  const esp_mqtt_event_t *e = (const esp_mqtt_event_t *)data;
  switch (id) {
    case MQTT_EVENT_CONNECTED:
      session_ring_put(&s->ring, SEEN_CONNECTED, 0);
      break;
    case MQTT_EVENT_DISCONNECTED:
      session_ring_put(&s->ring, SEEN_DISCONNECTED, 0);
      break;
    case MQTT_EVENT_PUBLISHED:
      session_ring_put(&s->ring, SEEN_PUBLISHED, e->msg_id);
      break;
    case MQTT_EVENT_ERROR:
      if (e->error_handle != NULL && e->error_handle->error_type == MQTT_ERROR_TYPE_CONNECTION_REFUSED)
        session_ring_put(&s->ring, SEEN_REFUSED, (int32_t)e->error_handle->connect_return_code);
      else
        session_ring_put(&s->ring, SEEN_TRANSPORT_ERROR, 0);
      break;
    default:
      break;
  }
}

/* The connect attempt in flight ends with `outcome`. */
static void connect_ended(mqtt_session *s, int32_t outcome, session_finished_fn finished, void *ctx) {
  if (s->connect_attempt == 0) return;
  session_finish(finished, ctx, s->handle, s->connect_attempt, outcome);
  s->connect_attempt = 0;
}

void mqtt_session_connect(mqtt_session *s, int32_t attempt, session_finished_fn finished, void *ctx) {
  s->connect_attempt = attempt;
  /* Without auto-reconnect esp-mqtt either waits for reconnect() (newer releases) or has
   * ended its task and wants start() again (IDF 4.4): try the one, then the other. */
  if (s->started && esp_mqtt_client_reconnect(s->client) == ESP_OK) return;
  if (esp_mqtt_client_start(s->client) == ESP_OK) {
    s->started = 1;
    return;
  }
  connect_ended(s, TICKRETRY_OUTCOME_TRANSIENT, finished, ctx);
}

void mqtt_session_publish(mqtt_session *s, int32_t handle, int32_t attempt, const char *topic, const char *payload,
                          session_finished_fn finished, void *ctx) {
  mqtt_publish *slot = NULL;
  for (int i = 0; i < TICKRETRY_LIMIT_OPERATIONS && slot == NULL; i++)
    if (s->publishes[i].attempt == 0 || s->publishes[i].handle == handle) slot = &s->publishes[i];
  int msg_id = s->up && slot != NULL ? esp_mqtt_client_enqueue(s->client, topic, payload, 0, 1, 0, true) : -1;
  if (msg_id <= 0) return session_finish(finished, ctx, handle, attempt, TICKRETRY_OUTCOME_TRANSIENT);
  *slot = (mqtt_publish){handle, attempt, msg_id};
}

/* Every publish still waiting for its PUBACK: the connection went with it. */
static void publishes_lost(mqtt_session *s, session_finished_fn finished, void *ctx) {
  for (int i = 0; i < TICKRETRY_LIMIT_OPERATIONS; i++) {
    mqtt_publish *p = &s->publishes[i];
    if (p->attempt == 0) continue;
    session_finish(finished, ctx, p->handle, p->attempt, TICKRETRY_OUTCOME_AMBIGUOUS);
    p->attempt = 0;
  }
}

int mqtt_session_forget(mqtt_session *s, int32_t handle, int32_t attempt) {
  if (handle == s->handle && attempt == s->connect_attempt) {
    s->connect_attempt = 0;
    esp_mqtt_client_disconnect(s->client); /* give up the handshake: the next attempt starts afresh */
    return 1;
  }
  for (int i = 0; i < TICKRETRY_LIMIT_OPERATIONS; i++) {
    mqtt_publish *p = &s->publishes[i];
    if (p->attempt == 0 || p->handle != handle || p->attempt != attempt) continue;
    p->attempt = 0;
    return 1;
  }
  return 0;
}

static void apply_one(mqtt_session *s, const session_seen *seen, session_finished_fn finished, void *ctx) {
  switch (seen->kind) {
    case SEEN_CONNECTED:
      if (s->drops > 0) s->reconnects++;
      s->up = 1;
      connect_ended(s, TICKRETRY_OUTCOME_SUCCESS, finished, ctx);
      s->news.link_back = 1; /* uploads held while it was down fall due within their spread */
      break;
    case SEEN_REFUSED:
      s->refused = seen->value;
      connect_ended(s, mqtt_connack_outcome(seen->value), finished, ctx);
      break;
    case SEEN_TRANSPORT_ERROR:
      connect_ended(s, TICKRETRY_OUTCOME_TRANSIENT, finished, ctx);
      break;
    case SEEN_DISCONNECTED:
      publishes_lost(s, finished, ctx);
      connect_ended(s, TICKRETRY_OUTCOME_TRANSIENT, finished, ctx);
      if (s->up) {
        s->up = 0;
        s->drops++;
        s->news.dropped = 1;
      }
      break;
    case SEEN_PUBLISHED:
      for (int i = 0; i < TICKRETRY_LIMIT_OPERATIONS; i++) {
        mqtt_publish *p = &s->publishes[i];
        if (p->attempt == 0 || p->msg_id != seen->value) continue;
        session_finish(finished, ctx, p->handle, p->attempt, TICKRETRY_OUTCOME_SUCCESS);
        p->attempt = 0;
      }
      break;
  }
}

void mqtt_session_apply(mqtt_session *s, session_finished_fn finished, void *ctx) {
  session_seen seen;
  while (session_ring_take(&s->ring, &seen)) apply_one(s, &seen, finished, ctx);
}
#endif /* UPLOAD_MQTT */
