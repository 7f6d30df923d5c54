/* boards/app/sessions.c, the room that owns the sketch's sessions, in an MQTT build, over
 * the board's esp-mqtt glue (mqtt_link.c), a fake esp-mqtt client and the real module
 * (wasm2c), driven through the tickretry loop with the HAL entries sketch_sessions.cpp
 * gives it. It walks the broker's refusal of the login (issue 33, item 6) and prints what
 * the status then shows of the session, one line a step, for
 * test/boards/mqtt-session.test.ts. */
#include <inttypes.h>
#include <stdio.h>

#include "generated/app_config.h"
#include "mqtt_link.h"
#include "sessions.h"
#include "tickretry.h"
#include "tickretry_loop.h"

/* The fake client: every call succeeds. */
struct esp_mqtt_client {
  int starts, reconnects;
};
static struct esp_mqtt_client fake;
esp_err_t esp_mqtt_client_start(esp_mqtt_client_handle_t c) { return c->starts++, ESP_OK; }
esp_err_t esp_mqtt_client_reconnect(esp_mqtt_client_handle_t c) { return c->reconnects++, ESP_OK; }
esp_err_t esp_mqtt_client_disconnect(esp_mqtt_client_handle_t c) { return (void)c, ESP_OK; }
int esp_mqtt_client_enqueue(esp_mqtt_client_handle_t c, const char *topic, const char *data, int len, int qos,
                            int retain, bool store) {
  (void)c, (void)topic, (void)data, (void)len, (void)qos, (void)retain, (void)store;
  return -1;
}

/* The system time the status says a refusal came at (ms since 1970). */
#define WALL_MS 1764672000123ull
static uint32_t now;
static uint64_t wall_ms(void *ctx) { return (void)ctx, WALL_MS + now; }
static void print(void *ctx, const char *text) { (void)ctx, (void)text; }
static const app_hal hal = {
    .wall_ms = wall_ms,
    .print = print,
    .mqtt_start = mqtt_link_start,
    .mqtt_reconnect = mqtt_link_reconnect,
    .mqtt_publish = mqtt_link_publish,
    .mqtt_disconnect = mqtt_link_disconnect,
};

static app_sessions sessions;
static tickretry_loop loop;

static uint32_t hal_ticks(void *ctx) { return (void)ctx, now; }
static int hal_collect(void *ctx, uint32_t t, tickretry_loop_result *out) {
  return (void)ctx, (void)t, app_sessions_collect(&sessions, out);
}
static int hal_dropped(void *ctx, uint32_t t, int32_t *handle) {
  return (void)ctx, (void)t, app_sessions_dropped(&sessions, handle);
}
static int hal_link_up(void *ctx, uint32_t t) { return (void)ctx, (void)t, app_sessions_link_up(&sessions); }
static void hal_start_attempt(void *ctx, int32_t h, int32_t attempt, int32_t operation_id, uint32_t t) {
  (void)ctx, (void)operation_id, (void)t;
  app_sessions_start_attempt(&sessions, h, attempt);
}
static void hal_on_event(void *ctx, const tickretry_loop_event *e) { (void)ctx, app_sessions_see(&sessions, &loop, e); }
static const tickretry_loop_hal loop_hal = {
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

static void event(int32_t id, esp_mqtt_error_codes_t *error) {
  esp_mqtt_event_t e = {.event_id = (esp_mqtt_event_id_t)id, .client = &fake, .error_handle = error};
  mqtt_link_event(&sessions.broker, "MQTT_EVENTS", id, &e);
}

static void show(const char *step) {
  status_session shown[APP_SESSION_COUNT];
  uint32_t n = app_sessions_status(&sessions, shown, now);
  const status_session *b = &shown[n - 1];
  printf("%s state=%s endReason=%s nextTryInMs=%s%" PRId32 " held=%d detail=%s\n", step, b->state, b->end_reason,
         b->next_try_in.present ? "" : "null:", b->next_try_in.ms, app_sessions_broker_held(&sessions), b->detail);
}

int main(void) {
  if (tickretry_open() != TICKRETRY_RESULT_OK) return 1;
  tickretry_init(1, 2);
  if (!app_sessions_set_policies()) return 2;
  tickretry_loop_init(&loop, &loop_hal);
  app_sessions_init(&sessions, &hal);
  mqtt_link_bind(&fake);
  app_sessions_bind_broker(&sessions,
                           app_sessions_begin(&sessions, &loop, &sessions.broker_view, 0, APP_BROKER_POLICY, 0));
  pass_at(3000); /* past the session policy's spread: the first connect */
  esp_mqtt_error_codes_t refused = {.error_type = MQTT_ERROR_TYPE_CONNECTION_REFUSED,
                                    .connect_return_code = MQTT_CONNECTION_REFUSE_NOT_AUTHORIZED};
  event(MQTT_EVENT_ERROR, &refused);
  pass_at(3010);
  show("refused");
  uint32_t ended_at = now;
  pass_at(ended_at + 1000);
  printf("a second later: resumed=%" PRId32 "\n", app_sessions_broker_resume(&sessions, &loop, now));
  show("held");
  now = ended_at + APP_BROKER_SESSION_REFUSED_HOLD_MS;
  int32_t again = app_sessions_broker_resume(&sessions, &loop, now);
  printf("after the hold: resumed=%d starts=%d\n", again > 0, fake.starts);
  pass_at(now + 3000); /* its first connect, on the client already started */
  event(MQTT_EVENT_CONNECTED, NULL);
  pass_at(now + 10);
  show("up again");
  printf("reconnects=%d starts=%d\n", fake.reconnects, fake.starts);
  return 0;
}
