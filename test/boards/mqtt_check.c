/* boards/app/mqtt_session.c and wifi_session.c against the real module (wasm2c) and a fake
 * esp-mqtt client under the board's mqtt_link.c (the HAL's mqtt_* entries and the event
 * handler), driven through the tickretry loop as the sketch drives them: its
 * HAL drains the sessions' rings in collect and hands their drops and the link's return
 * to `dropped` and `link_up`, and a TIMEOUT event forgets the attempt, as
 * sketch_sessions.cpp does. Each step feeds the events esp-mqtt (or the core's Wi-Fi)
 * would raise through the event handler, runs a pass, and prints one line of what the
 * module then says. test/boards/mqtt-session.test.ts reads the lines. */
#include <inttypes.h>
#include <stdio.h>

#include "generated/app_config.h"
#include "tickretry_loop.h"
#include "mqtt_link.h"
#include "mqtt_session.h"
#include "tickretry.h"
#include "tickretry_ticks.h"
#include "wifi_session.h"

/* The fake client: counts the calls the session makes. */
struct esp_mqtt_client {
  int starts, reconnects, enqueued;
};
static struct esp_mqtt_client fake;
esp_err_t esp_mqtt_client_start(esp_mqtt_client_handle_t c) { return c->starts++ == 0 ? ESP_OK : ESP_FAIL; }
esp_err_t esp_mqtt_client_reconnect(esp_mqtt_client_handle_t c) { return c->reconnects++, ESP_OK; }
esp_err_t esp_mqtt_client_disconnect(esp_mqtt_client_handle_t c) { return (void)c, ESP_OK; }
int esp_mqtt_client_enqueue(esp_mqtt_client_handle_t c, const char *topic, const char *data, int len, int qos,
                            int retain, bool store) {
  (void)topic, (void)data, (void)len, (void)retain, (void)store;
  return qos == 1 ? 100 + ++c->enqueued : -1;
}

/* The application's HAL as the board fills in its broker client's entries. */
static const app_hal mqtt_hal = {
    .mqtt_start = mqtt_link_start,
    .mqtt_reconnect = mqtt_link_reconnect,
    .mqtt_publish = mqtt_link_publish,
    .mqtt_disconnect = mqtt_link_disconnect,
};

static uint32_t now;
static mqtt_session s;
static wifi_session w;
static tickretry_loop loop;
static int wifi_begins;
static uint32_t broker_started_at = UINT32_MAX;

/* What the loop said of one handle the step watches: its timeout, whether a session
 * forgot that attempt, its end reason. */
static struct watched {
  int32_t handle;
  int timed_out, forgot;
  int32_t end_reason;
} watched;

static void watch(int32_t handle) { watched = (struct watched){.handle = handle, .end_reason = -1}; }

/* Answers in the order the sessions gave them, for collect (the sketch's queue). */
#define ANSWERS_KEPT 32
static tickretry_loop_result answers[ANSWERS_KEPT];
static uint32_t answers_in, answers_out;

static void finished(void *ctx, const tickretry_loop_result *r) {
  (void)ctx;
  answers[answers_in++ % ANSWERS_KEPT] = *r;
}

static uint32_t hal_ticks(void *ctx) { return (void)ctx, now; }

static int hal_collect(void *ctx, uint32_t t, tickretry_loop_result *out) {
  (void)ctx, (void)t;
  wifi_session_apply(&w, finished, NULL);
  mqtt_session_apply(&s, finished, NULL);
  if (answers_in == answers_out) return 0;
  *out = answers[answers_out++ % ANSWERS_KEPT];
  return 1;
}

static int hal_dropped(void *ctx, uint32_t t, int32_t *handle) {
  (void)ctx, (void)t;
  return session_take_drop(&w.news, w.handle, handle) || session_take_drop(&s.news, s.handle, handle);
}

static int hal_link_up(void *ctx, uint32_t t) {
  (void)ctx, (void)t;
  int wifi_back = session_take_link(&w.news);
  return session_take_link(&s.news) || wifi_back;
}

/* The session's connect attempt, or an upload's publish. */
static void hal_start_attempt(void *ctx, int32_t h, int32_t attempt, int32_t operation_id, uint32_t t) {
  (void)ctx, (void)operation_id;
  if (h == w.handle) {
    wifi_begins += wifi_session_connect(&w, attempt, finished, NULL);
  } else if (h == s.handle) {
    broker_started_at = t;
    mqtt_session_connect(&s, attempt, finished, NULL);
  } else {
    mqtt_session_publish(&s, h, attempt, "tickretry/readings", "{}", finished, NULL);
  }
}

/* A timed-out attempt is forgotten (its late answer reports nothing) and abandoned. */
static void hal_on_event(void *ctx, const tickretry_loop_event *e) {
  (void)ctx;
  if (e->kind == TICKRETRY_LOOP_EVENT_END && e->handle == watched.handle) watched.end_reason = e->reason;
  if (e->kind == TICKRETRY_LOOP_EVENT_END && e->handle == s.handle) mqtt_session_ended(&s, e->t);
  if (e->kind != TICKRETRY_LOOP_EVENT_TIMEOUT) return;
  int forgot = (e->handle == w.handle && wifi_session_forget(&w, e->attempt)) ||
               mqtt_session_forget(&s, e->handle, e->attempt);
  if (forgot) tickretry_loop_abandon(&loop, e->handle);
  if (e->handle == watched.handle) watched.timed_out = 1, watched.forgot = forgot;
}

static const tickretry_loop_hal hal = {
    .ticks = hal_ticks,
    .collect = hal_collect,
    .sessions = &tickretry_loop_sessions,
    .dropped = hal_dropped,
    .link_up = hal_link_up,
    .start_attempt = hal_start_attempt,
    .on_event = hal_on_event,
};

static void pass_at(uint32_t t) {
  now = t;
  tickretry_loop_pass(&loop);
}

static void event(int32_t id, int msg_id, esp_mqtt_error_codes_t *error) {
  esp_mqtt_event_t e = {.event_id = (esp_mqtt_event_id_t)id, .client = &fake, .msg_id = msg_id, .error_handle = error};
  mqtt_link_event(&s, "MQTT_EVENTS", id, &e);
}

/* A new broker session once the hold is over, as sessions.c begins it from the pass. */
static int resumed_at(uint32_t t) {
  pass_at(t);
  if (!mqtt_session_resume_due(&s, t)) return 0;
  mqtt_session_rebind(&s, tickretry_loop_begin(&loop, 1, t));
  pass_at(t); /* its first connect attempt, on the client already started */
  return 1;
}

/* Issue 36 item 6: a connect esp-mqtt ends with DISCONNECTED alone (it got through TCP, but
 * no CONNACK came within its network timeout) is THROTTLED, a busy broker; one it ends
 * with a transport ERROR first (the TCP connect refused: the broker is down), TRANSIENT. */
static int busy_steps(uint32_t t) {
  event(MQTT_EVENT_DISCONNECTED, 0, NULL); /* the drop */
  pass_at(t + 10);
  int reconnects = fake.reconnects;
  pass_at(t + 10 + 1700); /* past the longest wait after the drop: a reconnect attempt */
  event(MQTT_EVENT_DISCONNECTED, 0, NULL);
  pass_at(now + 10);
  int32_t busy = tickretry_last_outcome(s.handle);
  pass_at(now + 10); /* the next attempt: this policy's throttle base is 0 */
  esp_mqtt_error_codes_t transport = {.error_type = MQTT_ERROR_TYPE_TCP_TRANSPORT};
  event(MQTT_EVENT_ERROR, 0, &transport);
  event(MQTT_EVENT_DISCONNECTED, 0, NULL);
  pass_at(now + 10);
  printf("busy connect=%" PRId32 " refused connect=%" PRId32 " attempts=%d busy code=%" PRId32 "\n", busy,
         tickretry_last_outcome(s.handle), fake.reconnects - reconnects, mqtt_connack_outcome(MQTT_CONNACK_SERVER_BUSY));
  return 0;
}

/* Issue 33 item 6: a refused login ends the session PERMANENT, the client stops, and no
 * connect goes out until the hold of boards/app/config.json is over; then a new session
 * begins on the same client and comes up. */
static int refused_hold_steps(uint32_t t) {
  event(MQTT_EVENT_DISCONNECTED, 0, NULL);
  pass_at(t + 10);
  pass_at(t + 10 + 1700); /* past the longest wait after the drop: a reconnect attempt */
  esp_mqtt_error_codes_t refused = {.error_type = MQTT_ERROR_TYPE_CONNECTION_REFUSED,
                                    .connect_return_code = MQTT_CONNECTION_REFUSE_BAD_USERNAME};
  watch(s.handle);
  event(MQTT_EVENT_ERROR, 0, &refused);
  pass_at(now + 10);
  uint32_t ended_at = now;
  int reconnects = fake.reconnects, starts = fake.starts;
  int early = resumed_at(ended_at + APP_BROKER_SESSION_REFUSED_HOLD_MS - 1);
  uint32_t left = mqtt_session_hold_left(&s, now);
  int quiet = fake.reconnects == reconnects && fake.starts == starts;
  int resumed = resumed_at(ended_at + APP_BROKER_SESSION_REFUSED_HOLD_MS);
  int32_t state = tickretry_state(s.handle);
  event(MQTT_EVENT_CONNECTED, 0, NULL);
  pass_at(now + 10);
  printf("refused held end=%" PRId32 " ended=%d begun early=%d left=%" PRIu32 " quiet=%d begun after=%d state=%" PRId32
         " reconnects=%d starts=%d up=%d\n",
         watched.end_reason, s.ended || resumed, early, left, quiet, resumed, state, fake.reconnects - reconnects,
         fake.starts - starts, s.up);
  return busy_steps(now);
}

/* A publish whose PUBACK does not come within the attempt timeout is forgotten on the
 * loop's TIMEOUT event: its late PUBACK reports nothing. */
static int late_puback_steps(uint32_t t) {
  fake.starts = 0;   /* the client may start again */
  pass_at(t + 2000); /* the broker session's next connect */
  event(MQTT_EVENT_CONNECTED, 0, NULL);
  pass_at(t + 2010);
  int32_t upload = tickretry_loop_begin(&loop, 0, t + 2020);
  pass_at(t + 2020);
  int msg_id = 100 + fake.enqueued;
  watch(upload);
  pass_at(t + 2020 + 1001); /* past the attempt timeout */
  int32_t stale = tickretry_counter(TICKRETRY_COUNTER_STALE_REPORTS);
  event(MQTT_EVENT_PUBLISHED, msg_id, NULL);
  pass_at(now);
  printf("late puback up=%d timed out=%d forgot=%d stale reports=%" PRId32 "\n", s.up, watched.timed_out,
         watched.forgot, tickretry_counter(TICKRETRY_COUNTER_STALE_REPORTS) - stale);
  return refused_hold_steps(now);
}

/* A connect attempt the module times out is forgotten on the loop's TIMEOUT event; the IP
 * that comes after it is the link's return, whose kick makes the next attempt due, and
 * that attempt succeeds at once, with no WiFi.begin. */
static int late_ip_steps(void) {
  int begins = wifi_begins;
  pass_at(2930 + 900); /* past the wait after the drop: the station begins again */
  watch(w.handle);
  pass_at(2930 + 900 + 1001); /* past the attempt timeout */
  uint32_t failed = w.failed_in_row;
  wifi_session_seen(&w, WIFI_SEEN_GOT_IP, 0);
  pass_at(now); /* the kick: the next attempt starts and succeeds at once */
  pass_at(now); /* its SUCCESS reported */
  printf("late ip timed out=%d forgot=%d failed=%" PRIu32 " then state=%" PRId32 " failed=%" PRIu32 " begins=%d\n",
         watched.timed_out, watched.forgot, failed, tickretry_state(w.handle), w.failed_in_row, wifi_begins - begins);
  return late_puback_steps(now);
}

/* The station: a connect that gets no IP, then GOT_IP, whose kick starts a broker session
 * waiting out its backoff in the same pass; then a drop. */
static int wifi_steps(tickretry_policy broker) {
  tickretry_policy wifi = broker;
  wifi.spread = 0;
  if (tickretry_set_policy(2, &wifi) != 0) return 3;
  wifi_session_init(&w, tickretry_loop_begin(&loop, 2, 2000));
  mqtt_session_init(&s, &mqtt_hal, tickretry_loop_begin(&loop, 1, 2000));
  pass_at(2000); /* both connect: the station begins, the broker's start fails at once */
  wifi_session_seen(&w, WIFI_SEEN_DISCONNECTED, 201);
  pass_at(2010);
  printf("no ip state=%" PRId32 " failed=%" PRIu32 " reason=%u begins=%d broker=%" PRId32 "\n", tickretry_state(w.handle),
         w.failed_in_row, w.last_reason, wifi_begins, tickretry_last_outcome(s.handle));
  pass_at(2010 + 900); /* past the station's longest wait at level 1; the broker fails again */
  pass_at(2915);       /* that failure reported: the broker waits out its backoff */
  int due_before = tickretry_tick_reached(2920, tickretry_next_attempt_at(s.handle));
  int32_t kicks = tickretry_counter(TICKRETRY_COUNTER_KICKS);
  wifi_session_seen(&w, WIFI_SEEN_GOT_IP, 0);
  pass_at(2920);
  printf("got ip state=%" PRId32 " failed=%" PRIu32 " kicks=%" PRId32 " broker due before=%d started=%d\n",
         tickretry_state(w.handle), w.failed_in_row, tickretry_counter(TICKRETRY_COUNTER_KICKS) - kicks, due_before,
         broker_started_at == 2920);
  wifi_session_seen(&w, WIFI_SEEN_DISCONNECTED, 8);
  pass_at(2930);
  printf("wifi dropped state=%" PRId32 " drops=%" PRIu32 " reason=%u\n", tickretry_state(w.handle), w.drops,
         w.last_reason);
  return late_ip_steps();
}

int main(void) {
  if (tickretry_open() != TICKRETRY_RESULT_OK) return 1;
  tickretry_init(1, 2);
  tickretry_policy upload = {.max_attempts = 5, .attempt_timeout = 1000, .base_delay = 100, .max_delay = 400,
                             .flags = TICKRETRY_JITTER_FULL | TICKRETRY_POLICY_FLAG_IDEMPOTENT | TICKRETRY_POLICY_FLAG_KICK,
                             .spread = 50};
  tickretry_policy broker = {.attempt_timeout = 1000, .base_delay = 100, .max_delay = 800,
                             .flags = TICKRETRY_JITTER_FULL | TICKRETRY_POLICY_FLAG_SESSION, .stable_after = 5000};
  if (tickretry_set_policy(0, &upload) != 0 || tickretry_set_policy(1, &broker) != 0) return 2;
  tickretry_loop_init(&loop, &hal);
  mqtt_link_bind(&fake);
  mqtt_session_init(&s, &mqtt_hal, tickretry_loop_begin(&loop, 1, 0));

  pass_at(0);
  event(MQTT_EVENT_CONNECTED, 0, NULL);
  pass_at(10);
  printf("connected state=%" PRId32 " up=%d starts=%d\n", tickretry_state(s.handle), s.up, fake.starts);

  watch(tickretry_loop_begin(&loop, 0, 20));
  pass_at(20);
  event(MQTT_EVENT_PUBLISHED, 101, NULL);
  pass_at(30);
  printf("published end=%" PRId32 "\n", watched.end_reason);

  int32_t second = tickretry_loop_begin(&loop, 0, 40);
  pass_at(40);
  event(MQTT_EVENT_DISCONNECTED, 0, NULL);
  pass_at(50);
  printf("dropped state=%" PRId32 " upload=%" PRId32 " drops=%" PRId32 "\n", tickretry_state(s.handle),
         tickretry_last_outcome(second), tickretry_counter(TICKRETRY_COUNTER_DROPS));

  int32_t third = tickretry_loop_begin(&loop, 0, 60);
  pass_at(60);
  pass_at(60); /* the publish's answer, given at once, reported */
  printf("while down upload=%" PRId32 "\n", tickretry_last_outcome(third));

  pass_at(60 + 1600); /* past the session's longest wait at level 1 */
  esp_mqtt_error_codes_t refused = {.error_type = MQTT_ERROR_TYPE_CONNECTION_REFUSED,
                                    .connect_return_code = MQTT_CONNECTION_REFUSE_NOT_AUTHORIZED};
  watch(s.handle);
  event(MQTT_EVENT_ERROR, 0, &refused);
  pass_at(1700);
  printf("refused reconnects=%d end=%" PRId32 " lost=%" PRIu32 " fault=%" PRId32 "\n", fake.reconnects,
         watched.end_reason, s.ring.lost, tickretry_loop_fault(&loop));
  return wifi_steps(broker);
}
