/* The broker session's decisions (mqtt_session.h says which event becomes what). Built
 * only with the build flag UPLOAD_MQTT (PlatformIO compiles every file of the folder). */
#if UPLOAD_MQTT
#include "mqtt_session.h"

#include <string.h>

#include "generated/app_config.h"
#include "tickretry_ticks.h"

int32_t mqtt_connack_outcome(int code) {
  switch (code) {
    case MQTT_CONNACK_REFUSED_PROTOCOL:
    case MQTT_CONNACK_REFUSED_ID_REJECTED:
    case MQTT_CONNACK_REFUSED_BAD_USERNAME:
    case MQTT_CONNACK_REFUSED_NOT_AUTHORIZED:
      return TICKRETRY_OUTCOME_PERMANENT;
    case MQTT_CONNACK_SERVER_BUSY:
    case MQTT_CONNACK_RATE_EXCEEDED:
      return TICKRETRY_OUTCOME_THROTTLED; /* up, but overloaded: the throttle base's shorter waits */
    default:
      return TICKRETRY_OUTCOME_TRANSIENT; /* server unavailable: it may come back */
  }
}

void mqtt_session_init(mqtt_session *s, const app_hal *hal, int32_t handle) {
  memset(s, 0, sizeof *s);
  s->hal = hal;
  s->handle = handle;
}

void mqtt_session_ended(mqtt_session *s, uint32_t now) {
  s->ended = 1;
  s->ended_at = now;
  s->connect_attempt = 0;
  s->hal->mqtt_disconnect(s->hal->ctx);
}

uint32_t mqtt_session_hold_left(const mqtt_session *s, uint32_t now) {
  int32_t left = tickretry_ticks_until(now, tickretry_tick_after(s->ended_at, APP_BROKER_SESSION_REFUSED_HOLD_MS));
  return s->ended && left > 0 ? (uint32_t)left : 0;
}

int mqtt_session_resume_due(const mqtt_session *s, uint32_t now) {
  return s->ended && mqtt_session_hold_left(s, now) == 0;
}

void mqtt_session_rebind(mqtt_session *s, int32_t handle) {
  s->handle = handle;
  s->connect_attempt = 0;
  s->up = 0;
  s->refused = 0;
  s->ended = 0;
  memset(s->publishes, 0, sizeof s->publishes);
  s->news = (session_news){0, 0};
}

void mqtt_session_seen(mqtt_session *s, enum mqtt_seen_kind kind, int32_t value) {
  session_ring_put(&s->ring, (uint8_t)kind, value);
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
  if (s->started && s->hal->mqtt_reconnect(s->hal->ctx) == 0) return;
  if (s->hal->mqtt_start(s->hal->ctx) == 0) {
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
  int msg_id = s->up && slot != NULL ? s->hal->mqtt_publish(s->hal->ctx, topic, payload) : -1;
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
    s->hal->mqtt_disconnect(s->hal->ctx); /* give up the handshake: the next attempt starts afresh */
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
    case MQTT_SEEN_CONNECTED:
      if (s->drops > 0) s->reconnects++;
      s->up = 1;
      connect_ended(s, TICKRETRY_OUTCOME_SUCCESS, finished, ctx);
      s->news.link_back = 1; /* uploads held while it was down fall due within their spread */
      break;
    case MQTT_SEEN_REFUSED:
      s->refused = seen->value;
      connect_ended(s, mqtt_connack_outcome(seen->value), finished, ctx);
      break;
    case MQTT_SEEN_TRANSPORT_ERROR:
      connect_ended(s, TICKRETRY_OUTCOME_TRANSIENT, finished, ctx);
      break;
    case MQTT_SEEN_DISCONNECTED:
      publishes_lost(s, finished, ctx);
      /* A connect that ends with no ERROR before it got through TCP (a refusal or a transport
       * error ends it first) and had no CONNACK: the broker is up but too busy to answer. */
      connect_ended(s, TICKRETRY_OUTCOME_THROTTLED, finished, ctx);
      if (s->up) {
        s->up = 0;
        s->drops++;
        s->news.dropped = 1;
      }
      break;
    case MQTT_SEEN_PUBLISHED:
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
