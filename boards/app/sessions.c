/* See sessions.h. */
#include "sessions.h"

#include <stdio.h>
#include <string.h>

#include "tickretry.h"
#include "generated/app_config.h"
#include "tickretry_ticks.h"

/* The Wi-Fi station's and the broker's session policies: boards/app/config.json, through
 * the generated header, as the simulator takes them. */
static const tickretry_policy WIFI_POLICY = APP_CONFIG_WIFI_POLICY;
#if UPLOAD_MQTT
static const tickretry_policy BROKER_POLICY = APP_CONFIG_BROKER_POLICY;
#endif

void app_sessions_init(app_sessions *s, const app_hal *hal) {
  memset(s, 0, sizeof *s);
  s->hal = hal;
  s->wifi_view.name = "wifi";
  s->broker_view.name = "broker";
}

int app_sessions_set_policies(void) {
  int ok = tickretry_set_policy(APP_WIFI_POLICY, &WIFI_POLICY) == TICKRETRY_RESULT_OK;
#if UPLOAD_MQTT
  ok = ok && tickretry_set_policy(APP_BROKER_POLICY, &BROKER_POLICY) == TICKRETRY_RESULT_OK;
#endif
  return ok;
}

/* Each session's answers, in the order they came; `ctx` is the app_sessions. */
static void finished(void *ctx, const tickretry_loop_result *r) {
  app_sessions *s = (app_sessions *)ctx;
  if (s->answers_in - s->answers_out >= APP_SESSION_ANSWERS) return; /* never: one per attempt out, and 16 at most */
  s->answers[s->answers_in++ % APP_SESSION_ANSWERS] = *r;
}

/* A kept handle that is still one of the module's live sessions, else 0. */
static int32_t live_session(int32_t handle) {
  int32_t state = handle > 0 ? tickretry_state(handle) : -1;
  int live = state == TICKRETRY_STATE_WAITING || state == TICKRETRY_STATE_IN_FLIGHT || state == TICKRETRY_STATE_UP;
  return live && (tickretry_op_flags(handle) & TICKRETRY_OP_FLAG_SESSION) ? handle : 0;
}

int32_t app_sessions_begin(app_sessions *s, tickretry_loop *loop, app_session_view *view, int32_t kept,
                           uint32_t policy, uint32_t now) {
  int32_t handle = live_session(kept);
  if (handle == 0) handle = tickretry_loop_begin(loop, policy, now);
  if (handle < 0) {
    app_say(s->hal, "%s session not begun: %ld\n", view->name, (long)handle);
    handle = 0;
  }
  view->handle = handle;
  view->operation_id = handle ? tickretry_operation_id(handle) : 0;
  return handle;
}

void app_sessions_bind_wifi(app_sessions *s, int32_t handle) { wifi_session_init(&s->wifi, handle); }
#if UPLOAD_MQTT
void app_sessions_bind_broker(app_sessions *s, int32_t handle) { mqtt_session_init(&s->broker, s->hal, handle); }
#endif

app_session_start app_sessions_start_attempt(app_sessions *s, int32_t handle, int32_t attempt) {
  if (handle == 0) return APP_SESSION_NOT_ONE;
  if (handle == s->wifi_view.handle) {
    s->wifi_view.attempts++;
    /* WiFi.begin returns at once; GOT_IP or DISCONNECTED says later how it went. */
    return wifi_session_connect(&s->wifi, attempt, finished, s) ? APP_SESSION_WIFI_BEGIN : APP_SESSION_STARTED;
  }
#if UPLOAD_MQTT
  if (handle == s->broker_view.handle) {
    s->broker_view.attempts++;
    mqtt_session_connect(&s->broker, attempt, finished, s);
    return APP_SESSION_STARTED;
  }
#endif
  return APP_SESSION_NOT_ONE;
}

void app_sessions_wifi_begin_failed(app_sessions *s) { wifi_session_begin_failed(&s->wifi, finished, s); }

#if UPLOAD_MQTT
void app_sessions_publish(app_sessions *s, int32_t handle, int32_t attempt, const char *topic, const char *payload) {
  mqtt_session_publish(&s->broker, handle, attempt, topic, payload, finished, s);
}
#endif

int app_sessions_collect(app_sessions *s, tickretry_loop_result *out) {
  if (s->wifi_view.handle) wifi_session_apply(&s->wifi, finished, s);
#if UPLOAD_MQTT
  if (s->broker_view.handle) mqtt_session_apply(&s->broker, finished, s);
#endif
  if (s->answers_in == s->answers_out) return 0;
  *out = s->answers[s->answers_out++ % APP_SESSION_ANSWERS];
  return 1;
}

int app_sessions_dropped(app_sessions *s, int32_t *handle) {
  if (s->wifi_view.handle && session_take_drop(&s->wifi.news, s->wifi.handle, handle)) return 1;
#if UPLOAD_MQTT
  if (s->broker_view.handle && session_take_drop(&s->broker.news, s->broker.handle, handle)) return 1;
#endif
  return 0;
}

int app_sessions_link_up(app_sessions *s) {
  int back = s->wifi_view.handle && session_take_link(&s->wifi.news);
#if UPLOAD_MQTT
  back = (s->broker_view.handle && session_take_link(&s->broker.news)) || back;
#endif
  return back;
}

static void note(app_session_view *v, const char *text) { snprintf(v->detail, sizeof v->detail, "%s", text); }

/* A session's attempt timed out (no IP, no CONNACK) or its session ended: nothing of it will
 * be reported, so the loop stops waiting for it. */
static void forget_timed_out(app_sessions *s, tickretry_loop *loop, const tickretry_loop_event *e) {
  int forgotten = 0;
  if (e->handle == s->wifi_view.handle && wifi_session_forget(&s->wifi, e->attempt)) {
    note(&s->wifi_view, "no IP within the attempt timeout");
    forgotten = 1;
  }
#if UPLOAD_MQTT
  if (s->broker_view.handle && mqtt_session_forget(&s->broker, e->handle, e->attempt)) {
    if (e->handle == s->broker_view.handle) note(&s->broker_view, "no CONNACK in time");
    forgotten = 1;
  }
#endif
  if (forgotten) tickretry_loop_abandon(loop, e->handle);
}

static app_session_view *view_of(app_sessions *s, int32_t handle) {
  if (handle != 0 && handle == s->wifi_view.handle) return &s->wifi_view;
#if UPLOAD_MQTT
  if (handle != 0 && handle == s->broker_view.handle) return &s->broker_view;
#endif
  return NULL;
}

/* What the page says of a connect attempt's answer. */
static void note_answer(app_sessions *s, app_session_view *v, const tickretry_loop_event *e) {
  if (e->outcome == TICKRETRY_OUTCOME_SUCCESS) {
    note(v, v == &s->wifi_view ? "got an IP address" : "CONNACK accepted");
  } else if (v == &s->wifi_view) {
    snprintf(v->detail, sizeof v->detail, "no connection (reason %u)", (unsigned)s->wifi.last_reason);
#if UPLOAD_MQTT
  } else if (s->broker.refused != 0) {
    snprintf(v->detail, sizeof v->detail, "CONNACK refused: code %ld", (long)s->broker.refused);
#endif
  } else {
    note(v, "no connection to the broker");
  }
}

#if UPLOAD_MQTT
/* `ms` since 1970 as ISO 8601 in UTC, as the simulator's Date.toISOString writes it (days
 * to a civil date: the proleptic Gregorian calendar in 400-year eras). */
static void iso_time(uint64_t ms, char *out, size_t size) {
  uint64_t days = ms / 86400000u, in_day = ms % 86400000u;
  uint64_t z = days + 719468u, era = z / 146097u, doe = z - era * 146097u;
  uint64_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
  uint64_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u), mp = (5u * doy + 2u) / 153u;
  unsigned day = (unsigned)(doy - (153u * mp + 2u) / 5u + 1u), month = (unsigned)(mp < 10u ? mp + 3u : mp - 9u);
  unsigned long year = (unsigned long)(yoe + era * 400u + (month <= 2u));
  snprintf(out, size, "%04lu-%02u-%02uT%02u:%02u:%02u.%03uZ", year, month, day, (unsigned)(in_day / 3600000u),
           (unsigned)(in_day / 60000u % 60u), (unsigned)(in_day / 1000u % 60u), (unsigned)(in_day % 1000u));
}

/* The broker refused the session's login (the only end of a session that retries for
 * ever): the page says when, and what begins it again (the simulator's words). */
static void broker_ended(app_sessions *s, uint32_t now) {
  mqtt_session_ended(&s->broker, now);
  char at[48];
  iso_time(s->hal->wall_ms(s->hal->ctx), at, sizeof at);
  app_session_view *v = &s->broker_view;
  size_t used = strlen(v->detail);
  snprintf(v->detail + used, sizeof v->detail - used,
           "; refused at %s: a new session begins when the broker settings change, or %lu min later", at,
           (unsigned long)(APP_BROKER_SESSION_REFUSED_HOLD_MS / 60000u));
}

int32_t app_sessions_broker_resume(app_sessions *s, tickretry_loop *loop, uint32_t now) {
  if (!mqtt_session_resume_due(&s->broker, now)) return 0;
  int32_t handle = app_sessions_begin(s, loop, &s->broker_view, 0, APP_BROKER_POLICY, now);
  if (handle == 0) return 0;
  mqtt_session_rebind(&s->broker, handle);
  s->broker_view.end_reason = TICKRETRY_END_REASON_NONE;
  return handle;
}

int app_sessions_broker_held(const app_sessions *s) { return s->broker.ended; }
#endif

void app_sessions_see(app_sessions *s, tickretry_loop *loop, const tickretry_loop_event *e) {
  if (e->kind == TICKRETRY_LOOP_EVENT_TIMEOUT) {
    forget_timed_out(s, loop, e);
    return;
  }
  app_session_view *v = view_of(s, e->handle);
  if (v == NULL) return;
  if (e->kind == TICKRETRY_LOOP_EVENT_REPORT) note_answer(s, v, e);
  if (e->kind != TICKRETRY_LOOP_EVENT_END) return;
  v->end_reason = e->reason;
  v->last_outcome = tickretry_last_outcome(e->handle);
  v->handle = 0; /* the loop releases it now */
#if UPLOAD_MQTT
  if (v == &s->broker_view) broker_ended(s, e->t);
#endif
}

int app_sessions_wifi_up(const app_sessions *s) { return s->wifi_view.handle != 0 && s->wifi.up; }
int app_sessions_broker_up(const app_sessions *s) { return s->broker_view.handle != 0 && s->broker.up; }

/* `hold_left`: ms until an ended session begins again by itself (the broker's). */
static status_session status_of(const app_session_view *v, uint32_t drops, uint32_t reconnects, uint32_t hold_left,
                                uint32_t now) {
  int32_t h = v->handle, state = h ? tickretry_state(h) : -1;
  const char *name = state == TICKRETRY_STATE_UP          ? "up"
                     : state == TICKRETRY_STATE_IN_FLIGHT ? "connecting"
                     : state == TICKRETRY_STATE_WAITING   ? "backing off"
                                                          : "ended";
  int32_t outcome = h ? tickretry_last_outcome(h) : v->last_outcome;
  uint32_t next_at = h ? tickretry_next_attempt_at(h) : now; /* while UP: the tick it came up */
  return (status_session){v->name,
                          name,
                          v->operation_id,
                          v->attempts,
                          drops,
                          reconnects,
                          {state == TICKRETRY_STATE_UP, tickretry_ticks_until(next_at, now)},
                          {state == TICKRETRY_STATE_WAITING || hold_left > 0,
                           hold_left > 0 ? (int32_t)hold_left : tickretry_ticks_until(now, next_at)},
                          app_status_end_reason_name(v->end_reason),
                          app_status_outcome_name(outcome),
                          v->detail};
}

uint32_t app_sessions_status(const app_sessions *s, status_session *out, uint32_t now) {
  uint32_t n = 0;
  if (s->wifi_view.operation_id != 0) out[n++] = status_of(&s->wifi_view, s->wifi.drops, s->wifi.reconnects, 0, now);
#if UPLOAD_MQTT
  if (s->broker_view.operation_id != 0 || s->broker_view.detail[0])
    out[n++] = status_of(&s->broker_view, s->broker.drops, s->broker.reconnects,
                         mqtt_session_hold_left(&s->broker, now), now);
#endif
  return n;
}
