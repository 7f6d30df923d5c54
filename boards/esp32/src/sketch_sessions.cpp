// See sketch_sessions.h. The Arduino side of the sessions: WiFi.begin and the core's Wi-Fi
// events for the station, esp-mqtt's client for the broker (mqtt_link.c); the application's
// sessions room (../app/sessions.c) decides the rest.
#include "sketch_sessions.h"

#include <Arduino.h>
#include <WiFi.h>

#include "board_hal.h"
#include "generated/app_config.h"
#include "sessions.h"
#if UPLOAD_MQTT
#include "esp_idf_version.h"
#include "mqtt_client.h"
#include "mqtt_link.h"
#endif

// esp-mqtt's network timeout is its TCP connect's and its CONNACK's wait: a CONNACK not come
// within it ends the attempt THROTTLED (mqtt_session.c), before the policy's attempt timeout.
#define MQTT_NETWORK_TIMEOUT_MS APP_BROKER_SESSION_CONNACK_TIMEOUT_MS
#define MQTT_KEEPALIVE_S 30

static app_sessions sessions;
static char wifi_ssid[33], wifi_pass[64];

int sessions_collect(tickretry_loop_result *out) { return app_sessions_collect(&sessions, out); }

// On the core's event task: only queue.
static void wifi_event(arduino_event_t *event) {
  switch (event->event_id) {
    case ARDUINO_EVENT_WIFI_STA_GOT_IP:
      wifi_session_seen(&sessions.wifi, WIFI_SEEN_GOT_IP, 0);
      break;
    case ARDUINO_EVENT_WIFI_STA_DISCONNECTED:
      wifi_session_seen(&sessions.wifi, WIFI_SEEN_DISCONNECTED, event->event_info.wifi_sta_disconnected.reason);
      break;
    case ARDUINO_EVENT_WIFI_STA_LOST_IP:
      wifi_session_seen(&sessions.wifi, WIFI_SEEN_LOST_IP, 0);
      break;
    default:
      break;
  }
}

#if UPLOAD_MQTT
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

static app_session_handles *kept_handles;  // the kept state's, for a session begun again

static void broker_start(tickretry_loop *loop, app_session_handles *kept, const app_broker_settings *b, uint32_t now) {
  static esp_mqtt_client_handle_t client;  // one for the boot: a second start reuses it
  kept_handles = kept;
  app_session_view *view = &sessions.broker_view;
  if (client == nullptr) {
    broker_settings = *b;
    client = broker_settings.url[0] ? broker_client(&broker_settings) : nullptr;
  }
  if (client == nullptr) {
    // No broker set, or one esp-mqtt refuses: no session (the page says so), no uploads.
    strlcpy(view->detail, broker_settings.url[0] ? "esp-mqtt refused the broker URL" : "no broker set",
            sizeof view->detail);
    kept->broker = 0;
    return;
  }
  bool first = sessions.broker.hal == nullptr;
  kept->broker = app_sessions_begin(&sessions, loop, view, kept->broker, APP_BROKER_POLICY, now);
  mqtt_link_bind(client);
  app_sessions_bind_broker(&sessions, kept->broker);
  if (first) esp_mqtt_client_register_event(client, MQTT_EVENT_ANY, mqtt_link_event, &sessions.broker);
}

bool sessions_broker_up() { return app_sessions_broker_up(&sessions); }

bool sessions_broker_held(tickretry_loop *loop, uint32_t now) {
  int32_t handle = app_sessions_broker_resume(&sessions, loop, now);
  if (handle > 0) kept_handles->broker = handle;
  return app_sessions_broker_held(&sessions);
}

void sessions_publish(int32_t handle, int32_t attempt, const char *payload) {
  app_sessions_publish(&sessions, handle, attempt, broker_settings.topic, payload);
}
#endif

bool sessions_set_policies() { return app_sessions_set_policies(); }

void sessions_start(tickretry_loop *loop, app_session_handles *kept, const char *ssid, const char *pass,
                    const app_broker_settings *b, uint32_t now) {
  (void)b;
  static bool ready, registered;  // a second start (a module replaced afresh) keeps the first's
  if (!ready) app_sessions_init(&sessions, &board_hal);
  ready = true;
  if (ssid[0] == '\0') {
    *kept = {0, 0};
    return;
  }
  strlcpy(wifi_ssid, ssid, sizeof wifi_ssid);
  strlcpy(wifi_pass, pass, sizeof wifi_pass);
  if (!registered) {
    WiFi.setAutoReconnect(false);  // the Wi-Fi session decides when to try again
    WiFi.onEvent(wifi_event);
    registered = true;
  }
  kept->wifi = app_sessions_begin(&sessions, loop, &sessions.wifi_view, kept->wifi, APP_WIFI_POLICY, now);
  app_sessions_bind_wifi(&sessions, kept->wifi);
#if UPLOAD_MQTT
  broker_start(loop, kept, b, now);
#endif
}

bool sessions_start_attempt(int32_t handle, int32_t attempt) {
  app_session_start started = app_sessions_start_attempt(&sessions, handle, attempt);
  // WiFi.begin returns at once; GOT_IP or DISCONNECTED says later how it went.
  if (started == APP_SESSION_WIFI_BEGIN && WiFi.begin(wifi_ssid, wifi_pass[0] ? wifi_pass : nullptr) == WL_CONNECT_FAILED) {
    app_sessions_wifi_begin_failed(&sessions);
  }
  return started != APP_SESSION_NOT_ONE;
}

int sessions_dropped(int32_t *handle) { return app_sessions_dropped(&sessions, handle); }
int sessions_link_up() { return app_sessions_link_up(&sessions); }
void sessions_see(tickretry_loop *loop, const tickretry_loop_event *e) { app_sessions_see(&sessions, loop, e); }
uint32_t sessions_wifi_failed_in_row() { return sessions.wifi.failed_in_row; }
bool sessions_wifi_up() { return app_sessions_wifi_up(&sessions); }
uint32_t sessions_status(status_session *out, uint32_t now) { return app_sessions_status(&sessions, out, now); }
