/* See host_hal.h. Every NVS write and every stored body is printed, so that the trace
 * holds what the board's flash and the server would. */
#include "host_hal.h"

#include "broker.h"
#include "host_broker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVS_ENTRIES 32
#define NVS_KEY_BYTES 16
#define NVS_VALUE_BYTES (sizeof(app_kept) + 16)
#define SCRIPT_FATES 64
#define ANSWERS_OUT 16
#define SERVER_KEYS 4096 /* a day of readings, one a minute */

typedef enum { NVS_NONE, NVS_STRING, NVS_U32, NVS_BLOB } nvs_type;
typedef struct nvs_entry {
  char key[NVS_KEY_BYTES];
  nvs_type type;
  size_t length;
  uint8_t value[NVS_VALUE_BYTES];
} nvs_entry;
typedef struct answer {
  app_http_answer answer;
  uint32_t at;
} answer;
typedef struct stored {
  uint32_t epoch;
  int32_t op;
  unsigned long seq;
} stored;

static nvs_entry nvs[NVS_ENTRIES];
static app_kept rtc_kept;
uint32_t host_hal_rtc_trial;
static uint32_t now_ms, woke_flag;
static uint64_t wall;
static struct {
  host_fate fate[SCRIPT_FATES];
  uint32_t ms[SCRIPT_FATES];
  int next, count;
  host_fate fallback;
  uint32_t fallback_ms;
} script;
static answer out[ANSWERS_OUT];
static stored server[SERVER_KEYS];
static int server_count;

void host_hal_power_on(void) {
  memset(nvs, 0, sizeof nvs);
  host_hal_power_cut();
  wall = 1700000000000ull;
}

void host_hal_reboot(int woke_by_timer, uint32_t slept_ms) {
  woke_flag = (uint32_t)woke_by_timer;
  wall += slept_ms;
  now_ms = 0;
  memset(out, 0, sizeof out); /* every connection closed: no answer comes */
#if UPLOAD_MQTT
  host_broker_reset();
  host_broker_advance(0);
#endif
}

void host_hal_power_cut(void) {
  memset(&rtc_kept, 0xa5, sizeof rtc_kept);
  memset(&host_hal_rtc_trial, 0xa5, sizeof host_hal_rtc_trial);
  host_hal_reboot(0, 0);
}

void host_hal_advance(uint32_t ms) {
  now_ms += ms;
  wall += ms;
#if UPLOAD_MQTT
  host_broker_advance(now_ms);
#endif
}

void host_hal_script(host_fate fate, uint32_t ms) {
  if (script.count == SCRIPT_FATES) abort();
  script.fate[script.count] = fate;
  script.ms[script.count++] = ms;
}

void host_hal_fallback(host_fate fate, uint32_t ms) {
  script.fallback = fate;
  script.fallback_ms = ms;
}

int host_hal_answer_pending(void) {
  for (int i = 0; i < ANSWERS_OUT; i++)
    if (out[i].answer.handle) return 1;
  return 0;
}

/* FNV-1a, for the trace: enough to tell two writes' bytes apart. */
static uint32_t hash(const void *bytes, size_t length) {
  const uint8_t *p = bytes;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < length; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static uint32_t ticks(void *ctx) {
  (void)ctx;
  return now_ms;
}
static uint32_t micros_now(void *ctx) {
  (void)ctx;
  return now_ms * 1000u;
}
static uint64_t wall_ms(void *ctx) {
  (void)ctx;
  return wall;
}
static void print(void *ctx, const char *text) {
  (void)ctx;
  printf("%lu say %s", (unsigned long)now_ms, text);
  if (text[0] && text[strlen(text) - 1] != '\n') printf("\n");
}

static nvs_entry *nvs_find(const char *key, int add) {
  for (int i = 0; i < NVS_ENTRIES; i++)
    if (nvs[i].type != NVS_NONE && strcmp(nvs[i].key, key) == 0) return &nvs[i];
  if (!add) return NULL;
  for (int i = 0; i < NVS_ENTRIES; i++)
    if (nvs[i].type == NVS_NONE) {
      snprintf(nvs[i].key, sizeof nvs[i].key, "%s", key);
      return &nvs[i];
    }
  return NULL;
}

/* Preferences' put: the bytes stored, 0 when refused (a key too long, no room). */
static size_t nvs_put(const char *key, nvs_type type, const void *value, size_t length) {
  nvs_entry *e = strlen(key) < NVS_KEY_BYTES && length <= NVS_VALUE_BYTES ? nvs_find(key, 1) : NULL;
  if (!e) return 0;
  e->type = type;
  e->length = length;
  memcpy(e->value, value, length);
  printf("%lu nvs put %s %lu bytes hash %08lx\n", (unsigned long)now_ms, key, (unsigned long)length,
         (unsigned long)hash(value, length));
  return length;
}

/* Preferences' getters answer the fallback for a key of another type. */
static nvs_entry *nvs_typed(const char *key, nvs_type type) {
  nvs_entry *e = nvs_find(key, 0);
  return e && e->type == type ? e : NULL;
}

static size_t get_string(void *ctx, const char *key, const char *fallback, char *text, size_t size) {
  (void)ctx;
  nvs_entry *e = nvs_typed(key, NVS_STRING);
  const char *value = e ? (const char *)e->value : fallback;
  if (size > 0) snprintf(text, size, "%s", value);
  return strlen(value);
}
static size_t put_string(void *ctx, const char *key, const char *value) {
  (void)ctx;
  return nvs_put(key, NVS_STRING, value, strlen(value) + 1) ? strlen(value) : 0;
}
static uint32_t get_u32(void *ctx, const char *key, uint32_t fallback) {
  (void)ctx;
  nvs_entry *e = nvs_typed(key, NVS_U32);
  uint32_t value = fallback;
  if (e) memcpy(&value, e->value, sizeof value);
  return value;
}
static size_t put_u32(void *ctx, const char *key, uint32_t value) {
  (void)ctx;
  return nvs_put(key, NVS_U32, &value, sizeof value);
}
static size_t blob_length(void *ctx, const char *key) {
  (void)ctx;
  nvs_entry *e = nvs_typed(key, NVS_BLOB);
  return e ? e->length : 0;
}
static size_t get_blob(void *ctx, const char *key, void *bytes, size_t size) {
  (void)ctx;
  nvs_entry *e = nvs_typed(key, NVS_BLOB);
  if (!e || e->length > size) return 0;
  memcpy(bytes, e->value, e->length);
  return e->length;
}
static size_t put_blob(void *ctx, const char *key, const void *bytes, size_t size) {
  (void)ctx;
  return nvs_put(key, NVS_BLOB, bytes, size);
}

static int woke_by_timer(void *ctx) {
  (void)ctx;
  return (int)woke_flag;
}
/* Deterministic, so that two runs' traces compare. */
static void random_bytes(void *ctx, void *bytes, size_t size) {
  (void)ctx;
  static uint32_t x = 0x2545f491u;
  for (size_t i = 0; i < size; i++) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    ((uint8_t *)bytes)[i] = (uint8_t)x;
  }
}
static int station_on(void *ctx) {
  (void)ctx;
  return 1;
}

/* The server's side of an attempt that reached it: the body stored once per key. */
static void server_store(const app_http_attempt *a) {
  const char *seq_at = strstr(a->body, "\"seq\":");
  unsigned long seq = seq_at ? strtoul(seq_at + 6, NULL, 10) : 0;
  for (int i = 0; i < server_count; i++)
    if (server[i].epoch == a->epoch && server[i].op == a->operation_id) {
      printf("%lu server duplicate key %lu:%ld seq %lu\n", (unsigned long)now_ms, (unsigned long)a->epoch,
             (long)a->operation_id, seq);
      return;
    }
  if (server_count == SERVER_KEYS) abort();
  server[server_count++] = (stored){a->epoch, a->operation_id, seq};
  printf("%lu server stored key %lu:%ld seq %lu\n", (unsigned long)now_ms, (unsigned long)a->epoch,
         (long)a->operation_id, seq);
}

static void http_start(void *ctx, const app_http_attempt *a) {
  (void)ctx;
  int scripted = script.next < script.count;
  host_fate fate = scripted ? script.fate[script.next] : script.fallback;
  uint32_t ms = scripted ? script.ms[script.next] : script.fallback_ms;
  script.next += scripted;
  int slot = 0;
  while (slot < ANSWERS_OUT && out[slot].answer.handle) slot++;
  if (slot == ANSWERS_OUT) abort(); /* more than the module's slots could have out */
  app_http_answer *an = &out[slot].answer;
  *an = (app_http_answer){a->handle, a->attempt, 200, 0, 0, 0};
  out[slot].at = now_ms + ms;
  if (fate == HOST_OK || fate == HOST_HANG) server_store(a);
  if (fate == HOST_503) an->status = 503;
  if (fate == HOST_DOWN) an->status = -1, an->transport = TICKRETRY_OUTCOME_TRANSIENT;
  if (fate == HOST_HANG) {
    an->status = -11, an->transport = TICKRETRY_OUTCOME_AMBIGUOUS;
    out[slot].at = now_ms + HOST_CLIENT_GIVES_UP_MS;
  }
}

/* The earliest answer due by now, as the upload task's queue hands them back. */
static int http_collect(void *ctx, app_http_answer *answer_out) {
  (void)ctx;
  int best = -1;
  for (int i = 0; i < ANSWERS_OUT; i++)
    if (out[i].answer.handle && (int32_t)(now_ms - out[i].at) >= 0 && (best < 0 || out[i].at < out[best].at)) best = i;
  if (best < 0) return 0;
  *answer_out = out[best].answer;
  out[best].answer.handle = 0;
  return 1;
}

/* No setup access point here. */
static int station_only(void *ctx) {
  (void)ctx;
  return 1;
}

#if UPLOAD_MQTT
/* The scripted broker takes any settings. */
static int mqtt_bind(void *ctx, const app_broker_settings *settings, mqtt_session *session, char *why, size_t size) {
  (void)ctx, (void)settings, (void)why, (void)size;
  host_broker_bind(session);
  return 1;
}
#endif

/* The driver does the sleep and the reset itself (they do not return on a board). */
static void no_return(void *ctx, uint32_t ms) {
  (void)ctx;
  (void)ms;
  abort();
}
static void no_restart(void *ctx) {
  (void)ctx;
  abort();
}

const app_hal host_hal = {
    .ctx = NULL,
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
    .rtc_memory = &rtc_kept,
    .woke_by_timer = woke_by_timer,
    .random_bytes = random_bytes,
    .station_on = station_on,
    .station_only = station_only,
    .wifi_begin = NULL, /* the station is always on: no Wi-Fi session */
    .http_start = http_start,
    .http_collect = http_collect,
#if UPLOAD_MQTT
    .mqtt_start = host_broker_start,
    .mqtt_reconnect = host_broker_reconnect,
    .mqtt_publish = host_broker_publish,
    .mqtt_disconnect = host_broker_disconnect,
    .mqtt_bind = mqtt_bind,
#else
    .mqtt_start = NULL, /* the HTTP build has no broker */
    .mqtt_reconnect = NULL,
    .mqtt_publish = NULL,
    .mqtt_disconnect = NULL,
    .mqtt_bind = NULL,
#endif
    .deep_sleep = no_return,
    .restart = no_restart,
};
