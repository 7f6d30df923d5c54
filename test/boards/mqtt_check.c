/* boards/esp32/src/mqtt_session.c and wifi_session.c against the real module (wasm2c) and
 * a fake esp-mqtt client: each step feeds the events esp-mqtt (or the core's Wi-Fi) would
 * raise through the event handler, applies them as loop() does, reports what finished,
 * and prints one line of what the module then says. test/boards/mqtt-session.test.ts reads
 * the lines. */
#include <inttypes.h>
#include <stdio.h>

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

static uint32_t now;
static mqtt_session s;
static wifi_session w;
static int wifi_begins;

static void finished(void *ctx, const device_result *r) {
  (void)ctx;
  tickretry_report(r->handle, r->attempt, r->outcome, r->retry_after, now);
}

static void event(int32_t id, int msg_id, esp_mqtt_error_codes_t *error) {
  esp_mqtt_event_t e = {.event_id = (esp_mqtt_event_id_t)id, .client = &fake, .msg_id = msg_id, .error_handle = error};
  mqtt_session_event(&s, "MQTT_EVENTS", id, &e);
}

static void apply_at(uint32_t t) {
  now = t;
  mqtt_session_apply(&s, now, finished, NULL);
}

/* Polls at `t`: the session's connect attempt, or an upload's publish. */
static void poll_at(uint32_t t) {
  now = t;
  for (int32_t h = tickretry_poll(now); h >= 0; h = tickretry_poll(now)) {
    if (h == w.handle) wifi_begins += wifi_session_connect(&w, tickretry_attempt(h), finished, NULL);
    else if (h == s.handle) mqtt_session_connect(&s, tickretry_attempt(h), finished, NULL);
    else mqtt_session_publish(&s, h, tickretry_attempt(h), "tickretry/readings", "{}", finished, NULL);
  }
}

static void wifi_apply_at(uint32_t t) {
  now = t;
  wifi_session_apply(&w, now, finished, NULL);
}

/* A publish whose PUBACK does not come within the attempt timeout is forgotten, as the
 * board does on the loop's TIMEOUT event: its late PUBACK reports nothing. */
static int late_puback_steps(uint32_t t) {
  fake.starts = 0; /* the client may start again */
  poll_at(t + 2000); /* the broker session's next connect */
  mqtt_session_event(&s, "MQTT_EVENTS", MQTT_EVENT_CONNECTED, &(esp_mqtt_event_t){.event_id = MQTT_EVENT_CONNECTED});
  apply_at(t + 2010);
  int32_t upload = tickretry_begin(0, t + 2020);
  poll_at(t + 2020);
  int msg_id = 100 + fake.enqueued, attempt = tickretry_attempt(upload);
  now = t + 2020 + 1001;
  tickretry_next_due(now);
  int forgot = mqtt_session_forget(&s, upload, attempt);
  int32_t stale = tickretry_counter(TICKRETRY_COUNTER_STALE_REPORTS);
  event(MQTT_EVENT_PUBLISHED, msg_id, NULL);
  apply_at(now);
  printf("late puback up=%d timed out=%d forgot=%d stale reports=%" PRId32 "\n", s.up,
         tickretry_last_outcome(upload) == TICKRETRY_OUTCOME_TIMEOUT, forgot,
         tickretry_counter(TICKRETRY_COUNTER_STALE_REPORTS) - stale);
  return 0;
}

/* A connect attempt the module times out is forgotten, as the board does on the loop's
 * TIMEOUT event; the IP that comes after it makes the next attempt succeed at once, with
 * no WiFi.begin. */
static int late_ip_steps(void) {
  int begins = wifi_begins;
  poll_at(2930 + 900); /* past the wait after the drop: the station begins again */
  int32_t attempt = tickretry_attempt(w.handle);
  now = 2930 + 900 + 1001; /* past the attempt timeout, before anything else is polled */
  tickretry_next_due(now);
  int timed_out = tickretry_last_outcome(w.handle) == TICKRETRY_OUTCOME_TIMEOUT;
  int forgot = wifi_session_forget(&w, attempt);
  uint32_t failed = w.failed_in_row;
  wifi_session_seen(&w, WIFI_SEEN_GOT_IP, 0);
  wifi_apply_at(now);
  poll_at(now);
  printf("late ip timed out=%d forgot=%d failed=%" PRIu32 " then state=%" PRId32 " failed=%" PRIu32 " begins=%d\n",
         timed_out, forgot, failed, tickretry_state(w.handle), w.failed_in_row, wifi_begins - begins);
  return late_puback_steps(now);
}

/* The station: a connect that gets no IP, then GOT_IP, whose link_up makes a broker session
 * waiting out its backoff due at once; then a drop. */
static int wifi_steps(tickretry_policy broker) {
  tickretry_policy wifi = broker;
  wifi.spread = 0;
  if (tickretry_set_policy(2, &wifi) != 0) return 3;
  wifi_session_init(&w, tickretry_begin(2, 2000));
  mqtt_session_init(&s, &fake, tickretry_begin(1, 2000));
  poll_at(2000); /* both connect: the station begins, the broker's start fails at once */
  wifi_session_seen(&w, WIFI_SEEN_DISCONNECTED, 201);
  wifi_apply_at(2010);
  printf("no ip state=%" PRId32 " failed=%" PRIu32 " reason=%u begins=%d broker=%" PRId32 "\n", tickretry_state(w.handle),
         w.failed_in_row, w.last_reason, wifi_begins, tickretry_last_outcome(s.handle));
  poll_at(2010 + 900); /* past the station's longest wait at level 1; the broker fails again */
  int due_before = tickretry_tick_reached(2920, tickretry_next_attempt_at(s.handle));
  wifi_session_seen(&w, WIFI_SEEN_GOT_IP, 0);
  wifi_apply_at(2920);
  printf("got ip state=%" PRId32 " failed=%" PRIu32 " kicks=%" PRId32 " broker due before=%d after=%d\n",
         tickretry_state(w.handle), w.failed_in_row, tickretry_counter(TICKRETRY_COUNTER_KICKS), due_before,
         tickretry_tick_reached(now, tickretry_next_attempt_at(s.handle)));
  wifi_session_seen(&w, WIFI_SEEN_DISCONNECTED, 8);
  wifi_apply_at(2930);
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
  mqtt_session_init(&s, &fake, tickretry_begin(1, 0));

  poll_at(0);
  event(MQTT_EVENT_CONNECTED, 0, NULL);
  apply_at(10);
  printf("connected state=%" PRId32 " up=%d starts=%d\n", tickretry_state(s.handle), s.up, fake.starts);

  int32_t first = tickretry_begin(0, 20);
  poll_at(20);
  event(MQTT_EVENT_PUBLISHED, 101, NULL);
  apply_at(30);
  printf("published end=%" PRId32 "\n", tickretry_end_reason(first));

  int32_t second = tickretry_begin(0, 40);
  poll_at(40);
  event(MQTT_EVENT_DISCONNECTED, 0, NULL);
  apply_at(50);
  printf("dropped state=%" PRId32 " upload=%" PRId32 " drops=%" PRId32 "\n", tickretry_state(s.handle),
         tickretry_last_outcome(second), tickretry_counter(TICKRETRY_COUNTER_DROPS));

  int32_t third = tickretry_begin(0, 60);
  poll_at(60);
  printf("while down upload=%" PRId32 "\n", tickretry_last_outcome(third));

  poll_at(60 + 1600); /* past the session's longest wait at level 1 */
  esp_mqtt_error_codes_t refused = {.error_type = MQTT_ERROR_TYPE_CONNECTION_REFUSED,
                                    .connect_return_code = MQTT_CONNECTION_REFUSE_NOT_AUTHORIZED};
  event(MQTT_EVENT_ERROR, 0, &refused);
  apply_at(1700);
  printf("refused reconnects=%d state=%" PRId32 " end=%" PRId32 " lost=%" PRIu32 "\n", fake.reconnects,
         tickretry_state(s.handle), tickretry_end_reason(s.handle), s.ring.lost);
  return wifi_steps(broker);
}
