// See sketch_sessions.h. The Arduino side of the sessions: WiFi.begin and the core's Wi-Fi
// events for the station, esp-mqtt's client for the broker (mqtt_link.c); the application's
// wifi_session.c and mqtt_session.c turn their events into the module's words.
#include "sketch_sessions.h"

#include <Arduino.h>
#include <WiFi.h>

#include "generated/status_fields.h"
#include "tickretry.h"
#include "tickretry_ticks.h"
#include "wifi_session.h"
#if UPLOAD_MQTT
#include "esp_idf_version.h"
#include "board_hal.h"
#include "mqtt_client.h"
#include "mqtt_link.h"
#include "mqtt_session.h"
#endif

// Both sessions: backoff 1 s doubling to 60 s with full jitter, for as long as it takes
// (max attempts 0); stable after 30 s up; a restore or a kick spreads the next try over
// 2 s, so a site's devices that get their IP back together do not reconnect in one burst.
// Idempotent, so that an attempt the module timed out is tried again. Only the connect
// attempt's timeout differs: the station's 30 s (a wrong SSID or password gets nowhere in
// that time), the broker's 10 s for a CONNACK (esp-mqtt's network timeout, set shorter,
// gives up first).
static tickretry_policy session_policy(uint32_t attempt_timeout) {
  return tickretry_policy{
      .max_attempts = 0,
      .attempt_timeout = attempt_timeout,
      .base_delay = 1000,
      .max_delay = 60000,
      .throttle_base_delay = 0,
      .deadline = 0,
      .flags = TICKRETRY_JITTER_FULL | TICKRETRY_POLICY_FLAG_IDEMPOTENT | TICKRETRY_POLICY_FLAG_SESSION,
      .stable_after = 30000,
      .spread = 2000,
      .break_after = 0,
      .break_base = 0,
      .break_cap = 0,
  };
}
#define WIFI_CONNECT_TIMEOUT_MS 30000
#define BROKER_CONNECT_TIMEOUT_MS 10000
#define MQTT_NETWORK_TIMEOUT_MS 8000
#define MQTT_KEEPALIVE_S 30

// What a session shows beyond the module's queries: its connect attempts this boot, and
// once it ended (the loop released it) why.
struct SessionView {
  const char *name;
  int32_t handle, operation_id;
  uint32_t attempts;
  int32_t end_reason, last_outcome;
  char detail[48];
};

static wifi_session wifi;
static SessionView wifi_view = {"wifi", 0, 0, 0, 0, 0, ""};
static char wifi_ssid[33], wifi_pass[64];

// Answers in the order they came, for collect: the sessions' and the MQTT uploads'. Loop
// task only (the event tasks only queue), so plain indices do.
#define ANSWERS_KEPT (2 * TICKRETRY_LIMIT_OPERATIONS)
static tickretry_loop_result answers[ANSWERS_KEPT];
static uint32_t answers_in, answers_out;

static void finished(void *, const tickretry_loop_result *r) {
  if (answers_in - answers_out >= ANSWERS_KEPT) return;  // never: one per attempt out, and 16 at most
  answers[answers_in++ % ANSWERS_KEPT] = *r;
}

static void sessions_apply();

int sessions_collect(tickretry_loop_result *out) {
  sessions_apply();
  if (answers_in == answers_out) return 0;
  *out = answers[answers_out++ % ANSWERS_KEPT];
  return 1;
}

// On the core's event task: only queue.
static void wifi_event(arduino_event_t *event) {
  switch (event->event_id) {
    case ARDUINO_EVENT_WIFI_STA_GOT_IP:
      wifi_session_seen(&wifi, WIFI_SEEN_GOT_IP, 0);
      break;
    case ARDUINO_EVENT_WIFI_STA_DISCONNECTED:
      wifi_session_seen(&wifi, WIFI_SEEN_DISCONNECTED, event->event_info.wifi_sta_disconnected.reason);
      break;
    case ARDUINO_EVENT_WIFI_STA_LOST_IP:
      wifi_session_seen(&wifi, WIFI_SEEN_LOST_IP, 0);
      break;
    default:
      break;
  }
}

// A kept handle that is still one of the module's live sessions, else 0.
static int32_t live_session(int32_t handle) {
  int32_t state = handle > 0 ? tickretry_state(handle) : -1;
  bool live = state == TICKRETRY_STATE_WAITING || state == TICKRETRY_STATE_IN_FLIGHT || state == TICKRETRY_STATE_UP;
  return live && (tickretry_op_flags(handle) & TICKRETRY_OP_FLAG_SESSION) ? handle : 0;
}

static int32_t session_of(tickretry_loop *loop, int32_t kept, uint32_t policy, SessionView *view, uint32_t now) {
  int32_t handle = live_session(kept);
  if (handle == 0) handle = tickretry_loop_begin(loop, policy, now);
  if (handle < 0) {
    Serial.printf("%s session not begun: %ld\n", view->name, long(handle));
    handle = 0;
  }
  view->handle = handle;
  view->operation_id = handle ? tickretry_operation_id(handle) : 0;
  return handle;
}

#if UPLOAD_MQTT
static mqtt_session broker;
static SessionView broker_view = {"broker", 0, 0, 0, 0, 0, ""};
static app_broker_settings broker_settings;

// esp-mqtt's client with its own reconnect off: the broker session decides every connect.
// The configuration's layout changed with IDF 5 (arduino-esp32 3.x); the fields are the same.
static esp_mqtt_client_handle_t broker_client(const app_broker_settings *b) {
  esp_mqtt_client_config_t cfg = {};
#if ESP_IDF_VERSION_MAJOR >= 5
  cfg.broker.address.uri = b->url;
  cfg.credentials.client_id = b->client_id[0] ? b->client_id : nullptr;  // NULL: ESP32_<chip id>
  cfg.credentials.username = b->username[0] ? b->username : nullptr;
  cfg.credentials.authentication.password = b->password[0] ? b->password : nullptr;
  cfg.session.keepalive = MQTT_KEEPALIVE_S;
  cfg.network.disable_auto_reconnect = true;
  cfg.network.timeout_ms = MQTT_NETWORK_TIMEOUT_MS;
#else
  cfg.uri = b->url;
  cfg.client_id = b->client_id[0] ? b->client_id : nullptr;
  cfg.username = b->username[0] ? b->username : nullptr;
  cfg.password = b->password[0] ? b->password : nullptr;
  cfg.keepalive = MQTT_KEEPALIVE_S;
  cfg.disable_auto_reconnect = true;
  cfg.network_timeout_ms = MQTT_NETWORK_TIMEOUT_MS;
#endif
  return esp_mqtt_client_init(&cfg);
}

static void broker_start(tickretry_loop *loop, app_session_handles *kept, const app_broker_settings *b, uint32_t now) {
  static esp_mqtt_client_handle_t client;  // one for the boot: a second start reuses it
  if (client == nullptr) {
    broker_settings = *b;
    client = broker_settings.url[0] ? broker_client(&broker_settings) : nullptr;
  }
  if (client == nullptr) {
    // No broker set, or one esp-mqtt refuses: no session (the page says so), no uploads.
    strlcpy(broker_view.detail, broker_settings.url[0] ? "esp-mqtt refused the broker URL" : "no broker set",
            sizeof broker_view.detail);
    kept->broker = 0;
    return;
  }
  bool first = broker.hal == nullptr;
  kept->broker = session_of(loop, kept->broker, APP_BROKER_POLICY, &broker_view, now);
  mqtt_link_bind(client);
  mqtt_session_init(&broker, &board_hal, kept->broker);
  if (first) esp_mqtt_client_register_event(client, MQTT_EVENT_ANY, mqtt_link_event, &broker);
}

bool sessions_broker_up() { return broker_view.handle != 0 && broker.up; }

void sessions_publish(int32_t handle, int32_t attempt, const char *payload) {
  mqtt_session_publish(&broker, handle, attempt, broker_settings.topic, payload, finished, nullptr);
}
#endif

bool sessions_set_policies() {
  tickretry_policy wifi_policy = session_policy(WIFI_CONNECT_TIMEOUT_MS);
  bool ok = tickretry_set_policy(APP_WIFI_POLICY, &wifi_policy) == TICKRETRY_RESULT_OK;
#if UPLOAD_MQTT
  tickretry_policy broker_policy = session_policy(BROKER_CONNECT_TIMEOUT_MS);
  ok = ok && tickretry_set_policy(APP_BROKER_POLICY, &broker_policy) == TICKRETRY_RESULT_OK;
#endif
  return ok;
}

void sessions_start(tickretry_loop *loop, app_session_handles *kept, const char *ssid, const char *pass,
                    const app_broker_settings *b, uint32_t now) {
  (void)b;
  if (ssid[0] == '\0') {
    *kept = {0, 0};
    return;
  }
  strlcpy(wifi_ssid, ssid, sizeof wifi_ssid);
  strlcpy(wifi_pass, pass, sizeof wifi_pass);
  static bool registered;  // a second start (a module replaced afresh) keeps the first's
  if (!registered) {
    WiFi.setAutoReconnect(false);  // the Wi-Fi session decides when to try again
    WiFi.onEvent(wifi_event);
    registered = true;
  }
  kept->wifi = session_of(loop, kept->wifi, APP_WIFI_POLICY, &wifi_view, now);
  wifi_session_init(&wifi, kept->wifi);
#if UPLOAD_MQTT
  broker_start(loop, kept, b, now);
#endif
}

bool sessions_start_attempt(int32_t handle, int32_t attempt) {
  if (handle == 0) return false;
  if (handle == wifi_view.handle) {
    wifi_view.attempts++;
    // WiFi.begin returns at once; GOT_IP or DISCONNECTED says later how it went.
    if (wifi_session_connect(&wifi, attempt, finished, nullptr) &&
        WiFi.begin(wifi_ssid, wifi_pass[0] ? wifi_pass : nullptr) == WL_CONNECT_FAILED) {
      wifi_session_begin_failed(&wifi, finished, nullptr);
    }
    return true;
  }
#if UPLOAD_MQTT
  if (handle == broker_view.handle) {
    broker_view.attempts++;
    mqtt_session_connect(&broker, attempt, finished, nullptr);
    return true;
  }
#endif
  return false;
}

// What the Wi-Fi and MQTT event tasks queued since the last call.
static void sessions_apply() {
  if (wifi_view.handle) wifi_session_apply(&wifi, finished, nullptr);
#if UPLOAD_MQTT
  if (broker_view.handle) mqtt_session_apply(&broker, finished, nullptr);
#endif
}

int sessions_dropped(int32_t *handle) {
  if (wifi_view.handle && session_take_drop(&wifi.news, wifi.handle, handle)) return 1;
#if UPLOAD_MQTT
  if (broker_view.handle && session_take_drop(&broker.news, broker.handle, handle)) return 1;
#endif
  return 0;
}

int sessions_link_up() {
  int back = wifi_view.handle && session_take_link(&wifi.news);
#if UPLOAD_MQTT
  back = (broker_view.handle && session_take_link(&broker.news)) || back;
#endif
  return back;
}

// A session's attempt timed out (no IP, no CONNACK) or its session ended: nothing of it will
// be reported, so the loop stops waiting for it.
static void forget_timed_out(tickretry_loop *loop, const tickretry_loop_event *e) {
  bool forgotten = false;
  if (e->handle == wifi_view.handle && wifi_session_forget(&wifi, e->attempt)) {
    strlcpy(wifi_view.detail, "no IP within the attempt timeout", sizeof wifi_view.detail);
    forgotten = true;
  }
#if UPLOAD_MQTT
  if (broker_view.handle && mqtt_session_forget(&broker, e->handle, e->attempt)) {
    if (e->handle == broker_view.handle) strlcpy(broker_view.detail, "no CONNACK in time", sizeof broker_view.detail);
    forgotten = true;
  }
#endif
  if (forgotten) tickretry_loop_abandon(loop, e->handle);
}

static SessionView *view_of(int32_t handle) {
  if (handle != 0 && handle == wifi_view.handle) return &wifi_view;
#if UPLOAD_MQTT
  if (handle != 0 && handle == broker_view.handle) return &broker_view;
#endif
  return nullptr;
}

// What the page says of a connect attempt's answer.
static void note_answer(SessionView *v, const tickretry_loop_event *e) {
  if (e->outcome == TICKRETRY_OUTCOME_SUCCESS) {
    strlcpy(v->detail, v == &wifi_view ? "got an IP address" : "CONNACK accepted", sizeof v->detail);
  } else if (v == &wifi_view) {
    snprintf(v->detail, sizeof v->detail, "no connection (reason %u)", unsigned(wifi.last_reason));
#if UPLOAD_MQTT
  } else if (broker.refused != 0) {
    snprintf(v->detail, sizeof v->detail, "CONNACK refused: code %ld", long(broker.refused));
#endif
  } else {
    strlcpy(v->detail, "no connection to the broker", sizeof v->detail);
  }
}

void sessions_see(tickretry_loop *loop, const tickretry_loop_event *e) {
  if (e->kind == TICKRETRY_LOOP_EVENT_TIMEOUT) return forget_timed_out(loop, e);
  SessionView *v = view_of(e->handle);
  if (v == nullptr) return;
  if (e->kind == TICKRETRY_LOOP_EVENT_REPORT) note_answer(v, e);
  if (e->kind != TICKRETRY_LOOP_EVENT_END) return;
  v->end_reason = e->reason;
  v->last_outcome = tickretry_last_outcome(e->handle);
  v->handle = 0;  // the loop releases it now
}

uint32_t sessions_wifi_failed_in_row() { return wifi.failed_in_row; }
bool sessions_wifi_up() { return wifi_view.handle != 0 && wifi.up; }

static const char *const OUTCOME_NAMES[] = STATUS_OUTCOME_NAMES;
static const char *const END_REASON_NAMES[] = STATUS_END_REASON_NAMES;
#define NAME_OF(table, value) \
  (value >= 0 && size_t(value) < sizeof table / sizeof table[0] ? table[value] : "?")

static status_session status_of(const SessionView *v, uint32_t drops, uint32_t reconnects, uint32_t now) {
  int32_t h = v->handle, state = h ? tickretry_state(h) : -1;
  const char *name = state == TICKRETRY_STATE_UP          ? "up"
                     : state == TICKRETRY_STATE_IN_FLIGHT ? "connecting"
                     : state == TICKRETRY_STATE_WAITING   ? "backing off"
                                                          : "ended";
  int32_t outcome = h ? tickretry_last_outcome(h) : v->last_outcome;
  // While UP, next_attempt_at is the tick the session came up.
  return {v->name,
          name,
          v->operation_id,
          v->attempts,
          drops,
          reconnects,
          {state == TICKRETRY_STATE_UP, tickretry_ticks_until(h ? tickretry_next_attempt_at(h) : now, now)},
          {state == TICKRETRY_STATE_WAITING, tickretry_ticks_until(now, h ? tickretry_next_attempt_at(h) : now)},
          NAME_OF(END_REASON_NAMES, v->end_reason),
          NAME_OF(OUTCOME_NAMES, outcome),
          v->detail};
}

uint32_t sessions_status(status_session *out, uint32_t now) {
  uint32_t n = 0;
  if (wifi_view.operation_id != 0) out[n++] = status_of(&wifi_view, wifi.drops, wifi.reconnects, now);
#if UPLOAD_MQTT
  if (broker_view.operation_id != 0 || broker_view.detail[0])
    out[n++] = status_of(&broker_view, broker.drops, broker.reconnects, now);
#endif
  return n;
}
