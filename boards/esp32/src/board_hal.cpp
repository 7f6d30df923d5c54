// See board_hal.h: each entry of the application's HAL is one call of the framework.
#include "board_hal.h"

#include <Arduino.h>
#include <Preferences.h>
#include <WiFi.h>
#include <esp_sleep.h>
#include <esp_system.h>
#if __has_include(<esp_random.h>)  // ESP-IDF 5 moved it out of esp_system.h
#include <esp_random.h>
#endif
#include <sys/time.h>

#include "http_upload.h"
#include "kept.h"
#include "sketch_sessions.h"
#if UPLOAD_MQTT
#include "mqtt_link.h"
#endif

static Preferences prefs;
RTC_NOINIT_ATTR static app_kept kept;  // power-on garbage until a CRC says otherwise

bool board_nvs_open() { return prefs.begin("tickretry", false); }

static uint32_t ticks(void *) { return millis(); }
static uint32_t micros_now(void *) { return micros(); }

// The system time runs on through a deep sleep and a software reset, where millis()
// starts again; the page's timeline places events by it.
static uint64_t wall_ms(void *) {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return uint64_t(tv.tv_sec) * 1000 + uint64_t(tv.tv_usec) / 1000;
}

static void print(void *, const char *text) { Serial.print(text); }

static size_t get_string(void *, const char *key, const char *fallback, char *out, size_t size) {
  String value = prefs.getString(key, fallback);
  if (size > 0) strlcpy(out, value.c_str(), size);
  return value.length();
}
static size_t put_string(void *, const char *key, const char *value) { return prefs.putString(key, value); }
static uint32_t get_u32(void *, const char *key, uint32_t fallback) { return prefs.getUInt(key, fallback); }
static size_t put_u32(void *, const char *key, uint32_t value) { return prefs.putUInt(key, value); }
static size_t blob_length(void *, const char *key) { return prefs.getBytesLength(key); }
static size_t get_blob(void *, const char *key, void *out, size_t size) { return prefs.getBytes(key, out, size); }
static size_t put_blob(void *, const char *key, const void *bytes, size_t size) {
  return prefs.putBytes(key, bytes, size);
}

static int woke_by_timer(void *) { return esp_sleep_get_wakeup_cause() == ESP_SLEEP_WAKEUP_TIMER; }
static void random_bytes(void *, void *out, size_t size) { esp_fill_random(out, size); }
static int station_on(void *) { return WiFi.getMode() == WIFI_STA || WiFi.getMode() == WIFI_AP_STA; }
static int station_only(void *) { return WiFi.getMode() == WIFI_STA; }

static void deep_sleep(void *, uint32_t ms) {
  Serial.printf("deep sleep for %lu ms\n", (unsigned long)ms);
  Serial.flush();
  esp_sleep_enable_timer_wakeup(uint64_t(ms) * 1000u);
  esp_deep_sleep_start();
}
static void restart(void *) { ESP.restart(); }

const app_hal board_hal = {
    .ctx = nullptr,
    .ticks = ticks,
    .micros = micros_now,
    .wall_ms = wall_ms,
    .print = print,
    .nvs_get_string = get_string,
    .nvs_put_string = put_string,
    .nvs_get_u32 = get_u32,
    .nvs_put_u32 = put_u32,
    .nvs_blob_length = blob_length,
    .nvs_get_blob = get_blob,
    .nvs_put_blob = put_blob,
    .rtc_memory = &kept,
    .woke_by_timer = woke_by_timer,
    .random_bytes = random_bytes,
    .station_on = station_on,
    .station_only = station_only,
    .wifi_begin = sessions_wifi_begin,
#if UPLOAD_MQTT
    .http_start = nullptr,  // uploads are publishes of the broker session
    .http_collect = nullptr,
    .mqtt_start = mqtt_link_start,
    .mqtt_reconnect = mqtt_link_reconnect,
    .mqtt_publish = mqtt_link_publish,
    .mqtt_disconnect = mqtt_link_disconnect,
    .mqtt_bind = sessions_mqtt_bind,
#else
    .http_start = http_upload_start,
    .http_collect = http_upload_collect,
    .mqtt_start = nullptr,  // the HTTP build has no broker
    .mqtt_reconnect = nullptr,
    .mqtt_publish = nullptr,
    .mqtt_disconnect = nullptr,
    .mqtt_bind = nullptr,
#endif
    .deep_sleep = deep_sleep,
    .restart = restart,
};
