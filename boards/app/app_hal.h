/* The board under the application: what boards/app asks of it, as function pointers, so
 * that the rooms name no Arduino or ESP-IDF header and a host HAL can stand in for the
 * board. boards/esp32/src/board_hal.cpp implements it over arduino-esp32 and ESP-IDF.
 * The NVS entries keep Preferences' semantics (each value has the type it was put with;
 * a put returns the bytes stored, 0 when refused), since the stored data must stay
 * readable across firmware updates. */
#ifndef APP_HAL_H
#define APP_HAL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

/* HTTP uploads by default; -DUPLOAD_MQTT=1 publishes them to the broker of the setup
 * page's settings instead. */
#ifndef UPLOAD_MQTT
#define UPLOAD_MQTT 0
#endif

#define APP_BODY_BYTES 128

/* One upload attempt for the board's HTTP client: the body and the Idempotency-Key's
 * halves (the boot epoch the operation began in, its operation id). */
typedef struct app_http_attempt {
  int32_t handle, attempt, operation_id;
  uint32_t epoch;
  char body[APP_BODY_BYTES];
} app_http_attempt;

/* What an HTTP attempt met; the loop task classifies it (the module is not thread-safe). */
typedef struct app_http_answer {
  int32_t handle, attempt;
  int status;              /* an HTTP status, or the client's negative error code */
  int32_t transport;       /* for status <= 0: the board's TRANSIENT or AMBIGUOUS */
  uint8_t has_retry_after; /* Retry-After present, even as an HTTP-date */
  uint32_t retry_after_ms; /* its delta-seconds, capped */
} app_http_answer;

struct app_broker_settings;
struct mqtt_session;

typedef struct app_hal {
  void *ctx;
  uint32_t (*ticks)(void *ctx);   /* ms since boot, wrapping */
  uint32_t (*micros)(void *ctx);  /* for timing a flash write */
  uint64_t (*wall_ms)(void *ctx); /* the RTC: runs on through a deep sleep and a reset */
  void (*print)(void *ctx, const char *text); /* the serial console, as given */
  /* NVS (one namespace, opened by the board before the rooms start). */
  size_t (*nvs_get_string)(void *ctx, const char *key, const char *fallback, char *out, size_t size);
  size_t (*nvs_put_string)(void *ctx, const char *key, const char *value);
  uint32_t (*nvs_get_u32)(void *ctx, const char *key, uint32_t fallback);
  size_t (*nvs_put_u32)(void *ctx, const char *key, uint32_t value);
  size_t (*nvs_blob_length)(void *ctx, const char *key);
  size_t (*nvs_get_blob)(void *ctx, const char *key, void *out, size_t size);
  size_t (*nvs_put_blob)(void *ctx, const char *key, const void *bytes, size_t size);
  /* RTC memory: kept through a deep sleep and every software reset, garbage at power-on. */
  void *rtc_memory;
  int (*woke_by_timer)(void *ctx); /* this boot is a deep sleep's timed wake */
  void (*random_bytes)(void *ctx, void *out, size_t size);
  /* Wi-Fi: the station is on (alone, or beside the setup access point). */
  int (*station_on)(void *ctx);
  /* The station alone is on: no setup access point keeps the board awake for the page. */
  int (*station_only)(void *ctx);
  /* The Wi-Fi session's connect attempt: WiFi.begin, which answers later through the
   * session's events (0: refused at once). NULL: a board whose station is always on, which
   * the application does not supervise (no Wi-Fi session). */
  int (*wifi_begin)(void *ctx, const char *ssid, const char *pass);
  /* One HTTP upload attempt, off the loop task; its answer comes back through collect. */
  void (*http_start)(void *ctx, const app_http_attempt *attempt);
  int (*http_collect)(void *ctx, app_http_answer *out);
  /* The MQTT build's broker client, with its own reconnect off (0: the call was taken). */
  int (*mqtt_start)(void *ctx);
  int (*mqtt_reconnect)(void *ctx);
  int (*mqtt_publish)(void *ctx, const char *topic, const char *payload); /* QoS 1: msg_id > 0, else not sent */
  void (*mqtt_disconnect)(void *ctx);
  /* The MQTT build's client for `settings`, its events bound to `session`: 0 and why (into
   * `why`) when there is none (no broker set, or one the client refuses). */
  int (*mqtt_bind)(void *ctx, const struct app_broker_settings *settings, struct mqtt_session *session, char *why,
                   size_t size);
  void (*deep_sleep)(void *ctx, uint32_t ms); /* does not return */
  void (*restart)(void *ctx);                 /* does not return */
} app_hal;

/* printf onto the board's console. */
static inline void app_say(const app_hal *hal, const char *format, ...) {
  char line[160];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  hal->print(hal->ctx, line);
}

#ifdef __cplusplus
}
#endif
#endif
