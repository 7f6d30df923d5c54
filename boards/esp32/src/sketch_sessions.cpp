// See sketch_sessions.h. The Arduino side of the sessions: WiFi.begin and the core's Wi-Fi
// events for the station, esp-mqtt's client for the broker (mqtt_link.c); the application's
// sessions room (../app/sessions.c) decides the rest.
#include "sketch_sessions.h"

#include <Arduino.h>
#include <WiFi.h>

#include "generated/app_config.h"
#if UPLOAD_MQTT
#include "esp_idf_version.h"
#include "mqtt_client.h"
#include "mqtt_link.h"
#endif

// esp-mqtt's network timeout is its TCP connect's and its CONNACK's wait: a CONNACK not come
// within it ends the attempt THROTTLED (mqtt_session.c), before the policy's attempt timeout.
#define MQTT_NETWORK_TIMEOUT_MS APP_BROKER_SESSION_CONNACK_TIMEOUT_MS
#define MQTT_KEEPALIVE_S 30

static app_sessions *sessions;

void sessions_attach(app_sessions *s) { sessions = s; }

// On the core's event task: only queue.
static void wifi_event(arduino_event_t *event) {
  switch (event->event_id) {
    case ARDUINO_EVENT_WIFI_STA_GOT_IP:
      wifi_session_seen(&sessions->wifi, WIFI_SEEN_GOT_IP, 0);
      break;
    case ARDUINO_EVENT_WIFI_STA_DISCONNECTED:
      wifi_session_seen(&sessions->wifi, WIFI_SEEN_DISCONNECTED, event->event_info.wifi_sta_disconnected.reason);
      break;
    case ARDUINO_EVENT_WIFI_STA_LOST_IP:
      wifi_session_seen(&sessions->wifi, WIFI_SEEN_LOST_IP, 0);
      break;
    default:
      break;
  }
}

int sessions_wifi_begin(void *, const char *ssid, const char *pass) {
  static bool registered;  // before the boot's first attempt
  if (!registered) {
    WiFi.setAutoReconnect(false);  // the Wi-Fi session decides when to try again
    WiFi.onEvent(wifi_event);
    registered = true;
  }
  return WiFi.begin(ssid, pass[0] ? pass : nullptr) != WL_CONNECT_FAILED;
}

#if UPLOAD_MQTT
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

int sessions_mqtt_bind(void *, const app_broker_settings *b, mqtt_session *session, char *why, size_t size) {
  static esp_mqtt_client_handle_t client;  // one for the boot: a second start reuses it
  static app_broker_settings settings;     // esp-mqtt keeps pointers into its configuration
  static bool registered;
  if (client == nullptr) {
    settings = *b;
    client = settings.url[0] ? broker_client(&settings) : nullptr;
  }
  if (client == nullptr) {
    // No broker set, or one esp-mqtt refuses: no session (the page says so), no uploads.
    strlcpy(why, settings.url[0] ? "esp-mqtt refused the broker URL" : "no broker set", size);
    return 0;
  }
  mqtt_link_bind(client);
  if (!registered) esp_mqtt_client_register_event(client, MQTT_EVENT_ANY, mqtt_link_event, session);
  registered = true;
  return 1;
}
#endif

uint32_t sessions_wifi_failed_in_row() { return sessions->wifi.failed_in_row; }
bool sessions_wifi_up() { return app_sessions_wifi_up(sessions); }
uint32_t sessions_status(status_session *out, uint32_t now) { return app_sessions_status(sessions, out, now); }
