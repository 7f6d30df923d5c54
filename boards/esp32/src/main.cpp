// tickretry on an ESP32: every UPLOAD_EVERY_MS the device uploads a small JSON reading
// over HTTP (or, built with -DUPLOAD_MQTT=1, publishes it with QoS 1 over MQTT), retried
// by the scheduler module through boards/tickretry/tickretry_loop.c, with the operation id as
// Idempotency-Key (over MQTT: the payload's "op"). The Wi-Fi station, and over MQTT the
// broker connection, are sessions of the module (sketch_sessions.cpp): it decides every
// reconnect, and no retry waits in a delay(). The loop never blocks: the HTTP attempt runs
// in its own FreeRTOS task and comes back through a queue, esp-mqtt runs in its own, and
// the setup page is served on every pass. The scheduler's image is kept in RTC memory and
// NVS, so uploads go on after a deep sleep (DEEP_SLEEP=1 sleeps whenever nothing is in
// flight) or a reset.
// Without saved Wi-Fi credentials the board opens an access point with the setup page at
// http://192.168.4.1/. The page is boards/page/, the same files the simulator serves,
// embedded gzip-compressed in flash (setup_page.h, npm run embed); every change needs the
// device password (stored hashed) and comes from the page itself, and an uploaded module
// needs the build key's signature. Reads top to bottom: configuration, the upload task,
// the kept state, the tickretry loop's HAL, the setup page, setup(), loop().
#include <Arduino.h>
#include <HTTPClient.h>
#include <Preferences.h>
#include <WebServer.h>
#include <WiFi.h>
#include <esp_sleep.h>
#include <esp_system.h>
#if __has_include(<esp_mac.h>)  // ESP-IDF 5 moved these out of esp_system.h
#include <esp_mac.h>
#include <esp_random.h>
#endif
#include <sys/time.h>

#include "broker.h"
#include "kept.h"
#include "tickretry_loop.h"
#include "password.h"
#include "settings.h"
#include "status.h"
#include "tickretry_trace.h"
#include "module_signature.h"
#include "sketch_sessions.h"
#include "generated/page_routes.h"
#include "generated/setup_page.h"
#include "generated/status_fields.h"
#include "tickretry.h"
#include "generated/tickretry_build_key.h"
#include "generated/tickretry_module.h"
#include "tickretry_ticks.h"
#if TICKRETRY_BACKEND_WASM3
#include <wasm3.h>

#include "tickretry_wasm3.h"
#endif

// ---- Configuration -------------------------------------------------------------------

#define UPLOAD_EVERY_MS 60000u
// HTTP uploads by default; -DUPLOAD_MQTT=1 in build_flags publishes them to the broker of
// the setup page's settings instead (sketch_sessions.h defines it 0 when unset).
#define DEFAULT_UPLOAD_URL "http://192.168.1.10:8080/upload"
#define DEFAULT_BROKER_TOPIC "tickretry/readings"
// The HTTP client gives up before the module's attempt timeout, so that an answer
// normally arrives in time to count (a later one is reported and counted stale).
#define HTTP_CONNECT_TIMEOUT_MS 4000
#define HTTP_READ_TIMEOUT_MS 7000
// HTTPClient over plain TCP peaks near 5 KiB of stack; https would need about 12 KiB.
#define UPLOAD_TASK_STACK_BYTES 8192
#define BODY_BYTES 128
// The longest the main loop waits between passes: how late an answer or a page request
// may be noticed.
#define PASS_MAX_WAIT_MS 10
// Deep sleep while nothing is in flight, until the next due time or reading; off by
// default (-DDEEP_SLEEP=1), since the setup page is unreachable while the board sleeps.
#ifndef DEEP_SLEEP
#define DEEP_SLEEP 0
#endif
// Shorter waits are not worth a sleep (Wi-Fi takes a few seconds to come back); longer
// ones are cut, so that the board wakes at least hourly.
#define SLEEP_MIN_MS 10000u
#define SLEEP_MAX_MS 3600000u

// Idempotent because the server deduplicates on Idempotency-Key, so a timed-out or
// ambiguous attempt may be retried. 6 attempts of 10 s, backoff 1 s doubling to 30 s with
// full jitter, 5 s after a 429/503, all within 2 minutes. KICK: when the station gets its
// IP back (or the broker session comes up), a waiting upload falls due within 1 s instead
// of at the end of its backoff. Over MQTT also a breaker: after 2 failed attempts in a
// row (a broker gone away fails every publish at once) no upload starts until a probe
// gets through, so uploads wait instead of spending their attempts; link_up ends the break.
// Fields are named (in declaration order, as C++ requires); a field not named is 0.
static const tickretry_policy UPLOAD_POLICY = {
    .max_attempts = 6,
    .attempt_timeout = 10000,
    .base_delay = 1000,
    .max_delay = 30000,
    .throttle_base_delay = 5000,
    .deadline = 120000,
    .flags = TICKRETRY_JITTER_FULL | TICKRETRY_POLICY_FLAG_IDEMPOTENT | TICKRETRY_POLICY_FLAG_KICK,
    .stable_after = 0,  // a request policy: no session (g++'s -Wextra wants every field named)
    .spread = 1000,
    .break_after = UPLOAD_MQTT ? 2u : 0u,
    .break_base = 30000,
    .break_cap = 120000,
};
// The SRE / Finagle 10% budget of docs/ABI.md: retries may add at most a tenth to the load.
static const tickretry_budget RETRY_BUDGET = {
    .capacity = 10000,
    .initial = 10000,
    .retry_cost = 1000,
    .timeout_retry_cost = 1000,
    .threshold = 0,
    .failure_cost = 0,
    .first_attempt_deposit = 100,
    .success_deposit = 0,
    .flags = 0,
};

// wasm3 interprets on the loop task's stack (the module's calls are shallow, but wasm3
// compiles each function on its first call, which wants a few KiB more than the default).
SET_LOOP_TASK_STACK_SIZE(16 * 1024);

static char upload_url[160];
static BrokerSettings broker_settings;

// ---- The upload task: HTTP off the main loop ------------------------------------------
#if !UPLOAD_MQTT

struct UploadRequest {
  int32_t handle, attempt, operation_id;
  uint32_t epoch;  // the boot epoch the operation began in: the key's first half
  char body[BODY_BYTES];
};

// What the attempt met; the main loop classifies it (the module is not thread-safe).
struct UploadAnswer {
  int32_t handle, attempt;
  int status;  // an HTTP status, or HTTPClient's negative error code
  bool has_retry_after;
  uint32_t retry_after_ms;
};

static QueueHandle_t requests;
static QueueHandle_t answers;

static void read_retry_after(HTTPClient &http, UploadAnswer &answer) {
  if (!http.hasHeader("Retry-After")) return;
  answer.has_retry_after = true;
  String value = http.header("Retry-After");
  char *end = nullptr;
  unsigned long seconds = strtoul(value.c_str(), &end, 10);
  // Only delta-seconds is read; an HTTP-date still counts as "present" for classifyHttp.
  if (end == value.c_str() || *end != '\0') return;
  const unsigned long max_seconds = TICKRETRY_LIMIT_MAX_SPAN / 1000u;
  answer.retry_after_ms = (seconds > max_seconds ? max_seconds : seconds) * 1000u;
}

static void upload_task(void *) {
  static const char *kept_headers[] = {"Retry-After"};  // HTTPClient takes a non-const array
  UploadRequest request;
  for (;;) {
    if (xQueueReceive(requests, &request, portMAX_DELAY) != pdTRUE) continue;
    UploadAnswer answer = {request.handle, request.attempt, HTTPC_ERROR_NOT_CONNECTED, false, 0};
    HTTPClient http;
    if (WiFi.status() == WL_CONNECTED && http.begin(upload_url)) {
      http.setConnectTimeout(HTTP_CONNECT_TIMEOUT_MS);
      http.setTimeout(HTTP_READ_TIMEOUT_MS);
      http.collectHeaders(kept_headers, 1);
      http.addHeader("Content-Type", "application/json");
      // "<epoch>-<operation id>": an older image that comes back after a failed NVS write
      // repeats operation ids, but never under this boot's epoch.
      http.addHeader("Idempotency-Key", String((unsigned long)request.epoch) + "-" + String((long)request.operation_id));
      answer.status = http.POST(reinterpret_cast<uint8_t *>(request.body), strlen(request.body));
      read_retry_after(http, answer);
      http.end();
    }
    // Waiting here holds up only this task, never the main loop.
    xQueueSend(answers, &answer, portMAX_DELAY);
  }
}

// A transport error is the host's to classify (docs/ABI.md, classifyHttp): TRANSIENT
// when nothing can have reached the server, AMBIGUOUS when the request may have.
static int32_t transport_outcome(int error) {
  switch (error) {
    case HTTPC_ERROR_SEND_PAYLOAD_FAILED:
    case HTTPC_ERROR_CONNECTION_LOST:
    case HTTPC_ERROR_STREAM_WRITE:
    case HTTPC_ERROR_READ_TIMEOUT:
      return TICKRETRY_OUTCOME_AMBIGUOUS;
    default:  // refused, not connected, no server, headers not sent, no RAM ...
      return TICKRETRY_OUTCOME_TRANSIENT;
  }
}
#endif

// ---- What survives a deep sleep and a reset ----------------------------------------

// The scheduler's image (tickretry_save: every operation with its operation id, the
// budget, the counters), the tickretry loop's slots and each slot's upload body and boot
// epoch, so that an upload goes on with the same Idempotency-Key and the same bytes.
//
// Flash wear (docs/device.md has the figures): the ~3.1 KB of it change at every begin,
// answer and end, and NVS wears out at about 100,000 erases a page. So RTC memory, which
// survives a deep sleep and every software reset (panic, watchdog, ESP.restart()), takes
// every change, and NVS takes the state at most every NVS_EVERY_MS (20 min). What that costs is a
// power cut's only: the readings begun since the last NVS write, and those then come
// back under older operation ids, which the boot epoch in each key keeps apart from the
// new ones (see begin_upload). A write NVS refuses is counted, shown, and retried.
// The flash-life model's blob (host/tools/src/device/nvs-wear.ts, KEPT_BYTES) is this struct;
// test/boards/sketch.test.ts passes its size in to hold the two together.
struct Kept {
  uint32_t crc;     // app_kept_crc32 of every byte after it: a torn or corrupt copy is refused whole
  uint32_t magic;   // KEPT_MAGIC once the fields below hold a saved state
  uint32_t length;  // of the image
  uint8_t image[TICKRETRY_IMAGE_AREA_BYTES];
  tickretry_loop_slots slots;
  char bodies[TICKRETRY_LIMIT_OPERATIONS][BODY_BYTES];  // per slot, fixed at begin
  uint32_t epochs[TICKRETRY_LIMIT_OPERATIONS];          // per slot: the boot epoch it began in
  uint32_t upload_seq;
  uint32_t sleep_ms;        // the deep sleep the board went into
  uint32_t next_upload_in;  // ms from the start of that sleep to the next reading
  SessionHandles sessions;  // the Wi-Fi and broker sessions in the image
};
#ifdef KEPT_BYTES_EXPECTED
static_assert(sizeof(Kept) == KEPT_BYTES_EXPECTED, "nvs-wear.ts's KEPT_BYTES is not sizeof(Kept)");
#endif
#define KEPT_MAGIC 0x6b747232u
#define KEPT_KEY "kept"
#define EPOCH_KEY "epoch"
#define WIFI_FAILS_KEY "wififails"  // failed Wi-Fi connects in a row (wifi_fallback)
// At most one NVS write of the kept state this often; a refused one is tried again after
// NVS_RETRY_MS.
#define NVS_EVERY_MS 1200000u
#define NVS_RETRY_MS 5000u

RTC_NOINIT_ATTR static Kept kept;  // power-on garbage until a CRC says otherwise
static uint32_t kept_changes;      // tickretry_changes() right after the last save
static Preferences prefs;
static bool nvs_ok;                // prefs.begin succeeded: without it nothing is claimed or begun
static uint32_t boot_epoch;        // this boot's, kept in NVS before any upload begins
static bool nvs_dirty;             // RTC memory holds a state NVS does not
static uint32_t nvs_due_at;        // when NVS may be written next
static uint32_t kept_write_failures;

static uint32_t kept_crc() {
  return app_kept_crc32(reinterpret_cast<const uint8_t *>(&kept) + sizeof kept.crc, sizeof kept - sizeof kept.crc);
}
static bool kept_valid() { return kept.magic == KEPT_MAGIC && kept.crc == kept_crc(); }

// ---- The tickretry loop's HAL ----------------------------------------------------------

static tickretry_loop uploads;
static char last_event[96] = "none yet";
static char device_id[13];

static char *body_of(int32_t handle) {
  static char none[BODY_BYTES];
  int32_t slot = tickretry_slot(handle);
  return slot >= 0 ? kept.bodies[slot] : none;
}

static uint32_t hal_ticks(void *) { return millis(); }

#if UPLOAD_MQTT
static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t, uint32_t) {
  if (!sessions_start_attempt(handle, attempt)) sessions_publish(handle, attempt, body_of(handle));
}

static void remember_outcome(int32_t handle, int32_t outcome);

static int hal_collect(void *, uint32_t, tickretry_loop_result *out) {
  if (!sessions_collect(out)) return 0;
  remember_outcome(out->handle, out->outcome);
  return 1;
}
#else
static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t) {
  if (sessions_start_attempt(handle, attempt)) return;
  int32_t slot = tickretry_slot(handle);
  UploadRequest request = {handle, attempt, operation_id, slot >= 0 ? kept.epochs[slot] : boot_epoch, {0}};
  strlcpy(request.body, body_of(handle), sizeof request.body);
  if (xQueueSend(requests, &request, 0) == pdTRUE) return;
  // The task is backed up: nothing was sent, so say so now rather than time out later.
  UploadAnswer refused = {handle, attempt, HTTPC_ERROR_CONNECTION_REFUSED, false, 0};
  xQueueSend(answers, &refused, 0);
}

static void remember_answer(int32_t handle, int status);

static int hal_collect(void *, uint32_t, tickretry_loop_result *out) {
  if (sessions_collect(out)) return 1;
  UploadAnswer answer;
  if (xQueueReceive(answers, &answer, 0) != pdTRUE) return 0;
  int32_t outcome = answer.status > 0 ? tickretry_classify_http(answer.status, answer.has_retry_after)
                                      : transport_outcome(answer.status);
  remember_answer(answer.handle, answer.status);
  // A status outside 100..599 is no HTTP answer the module can place: nothing to retry.
  if (outcome < 0) outcome = TICKRETRY_OUTCOME_PERMANENT;
  *out = {.handle = answer.handle, .attempt = answer.attempt, .outcome = outcome, .retry_after = answer.retry_after_ms};
  return 1;
}
#endif

static void begin_due(uint32_t now);
static void keep_state(bool always, uint32_t now);

// Inside the pass, after it released what ended: a full table frees a slot first, and
// the upload's first attempt leaves in this pass, after persist.
static void hal_begin_due(void *, tickretry_loop *, uint32_t now) { begin_due(now); }

// After the pass's reports: a session that lost its connection, and the link's return
// (GOT_IP, CONNACK); the loop drops and kicks.
static int hal_dropped(void *, uint32_t, int32_t *handle) { return sessions_dropped(handle); }
static int hal_link_up(void *, uint32_t) { return sessions_link_up(); }

// Before any attempt of the pass leaves (the persist-before-send rule).
static void hal_persist(void *, uint32_t now) { keep_state(false, now); }

static WebServer server(80);

static void hal_serve(void *) { server.handleClient(); }

static void record_event(const tickretry_loop_event *event);

static void hal_on_event(void *, const tickretry_loop_event *event) {
  tickretry_loop_event_format(event, last_event, sizeof last_event);
  Serial.println(last_event);
  sessions_see(&uploads, event);
  record_event(event);
}

static const tickretry_loop_hal hal = {
    .ctx = nullptr,
    .ticks = hal_ticks,
    .collect = hal_collect,
    .sessions = &tickretry_loop_sessions,
    .dropped = hal_dropped,
    .link_up = hal_link_up,
    .begin_due = hal_begin_due,
    .persist = hal_persist,
    .start_attempt = hal_start_attempt,
    .on_event = hal_on_event,
    .serve = hal_serve,
};

// ---- The setup page -----------------------------------------------------------------

static bool scheduler_ok;
static bool restart_pending;
static uint32_t restart_at;

// What the page's status shows beyond the module's own queries: per live operation its
// last answer and begin time, the last ended operations, the last events (for the live
// timeline) and the loop's gaps. Keyed by handle, never by decoding one.
#define RECENT_KEPT 8
#define EVENTS_KEPT 32
#define DETAIL_BYTES 40
struct Tracked {
  int32_t handle;
  bool used;
  uint32_t begun_at;
  int32_t reading;  // the upload's seq; -1 for one restored after a sleep or reset
  char detail[DETAIL_BYTES];
};
struct Ended {
  status_ended view;
  char detail[DETAIL_BYTES];
};
static Tracked tracked[TICKRETRY_LIMIT_OPERATIONS];
static Ended recent[RECENT_KEPT];
static uint32_t recent_count;
static status_event events[EVENTS_KEPT];  // a ring; event_seq counts every event ever
static uint32_t event_seq;
static uint32_t passes, last_pass_at, last_gap_ms, max_gap_ms;
// The store and power groups: NVS writes of the kept state and how long they took, ends,
// uploads not begun (every slot taken), and how this boot came about.
static uint32_t kept_writes, operations_ended, uploads_dropped;
static float max_write_ms;
static const char *boot_kind = "power-on";
static uint32_t boot_elapsed_ms, boot_restored;
RTC_DATA_ATTR static uint32_t boots;  // a deep sleep keeps it, a reset does not
static uint16_t gap_histogram[100];  // 1 ms buckets; the last holds 99 ms and more
static const char *const STATE_NAMES[] = STATUS_STATE_NAMES;
static const char *const OUTCOME_NAMES[] = STATUS_OUTCOME_NAMES;
static const char *const END_REASON_NAMES[] = STATUS_END_REASON_NAMES;

static const char *name_of(const char *const *names, size_t count, int32_t value) {
  return value >= 0 && size_t(value) < count ? names[value] : "?";
}
#define NAME(table, value) name_of(table, sizeof table / sizeof table[0], value)

static Tracked *tracked_of(int32_t handle, bool add) {
  for (Tracked &t : tracked)
    if (t.used && t.handle == handle) return &t;
  if (!add) return nullptr;
  for (Tracked &t : tracked)
    if (!t.used) {
      t = {handle, true, millis(), -1, ""};
      return &t;
    }
  return nullptr;
}

#if UPLOAD_MQTT
// What a publish's answer means (mqtt_session.h): its PUBACK, no connection to send it on,
// or a connection lost before the PUBACK (it may have reached the broker).
static void remember_outcome(int32_t handle, int32_t outcome) {
  Tracked *t = tracked_of(handle, false);
  if (!t) return;
  strlcpy(t->detail,
          outcome == TICKRETRY_OUTCOME_SUCCESS     ? "PUBACK"
          : outcome == TICKRETRY_OUTCOME_AMBIGUOUS ? "connection lost before the PUBACK"
                                                   : "not sent: no broker connection",
          sizeof t->detail);
}
#else
static void remember_answer(int32_t handle, int status) {
  Tracked *t = tracked_of(handle, false);
  if (!t) return;
  if (status > 0) snprintf(t->detail, sizeof t->detail, "HTTP %d", status);
  else snprintf(t->detail, sizeof t->detail, "transport error %d", status);
}
#endif

// The RTC, ms: the system time runs on through a deep sleep and a software reset, where
// millis() starts again; the page's timeline places events by it.
static uint64_t wall_ms() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return uint64_t(tv.tv_sec) * 1000 + uint64_t(tv.tv_usec) / 1000;
}

static void add_event(const char *kind, int32_t operation_id, int32_t attempt, int32_t outcome, int32_t reason) {
  events[event_seq % EVENTS_KEPT] = {event_seq + 1, millis(), wall_ms(), kind, operation_id, attempt,
                                     NAME(OUTCOME_NAMES, outcome), NAME(END_REASON_NAMES, reason)};
  event_seq++;
}

// This boot on the page's timeline, after the sleep it woke from (the sleep's own event
// was lost with the RAM that held it: it is placed back by how long the sleep lasted).
static void mark_boot() {
  if (strcmp(boot_kind, "deep sleep") == 0) {
    add_event("sleep", 0, 0, 0, 0);
    events[(event_seq - 1) % EVENTS_KEPT].wall_ms -= boot_elapsed_ms;
  }
  add_event("boot", 0, 0, 0, 0);
}

// The page's event kinds (begin, start, answer, timeout, end); a session's up, drop and
// link-up show in its own row and on the serial log, not here.
static void record_event(const tickretry_loop_event *e) {
  if (e->kind == TICKRETRY_LOOP_EVENT_START) {
    tracked_of(e->handle, true);  // an operation restored after a sleep or reset shows from here
    add_event("start", e->operation_id, e->attempt, 0, 0);
  } else if (e->kind == TICKRETRY_LOOP_EVENT_REPORT) {
    add_event("answer", tickretry_operation_id(e->handle), e->attempt, e->outcome, 0);
  } else if (e->kind == TICKRETRY_LOOP_EVENT_TIMEOUT) {
    add_event("timeout", tickretry_operation_id(e->handle), e->attempt, 0, 0);
  } else if (e->kind == TICKRETRY_LOOP_EVENT_END) {
    int32_t id = tickretry_operation_id(e->handle);
    add_event("end", id, e->attempt, 0, e->reason);
    Tracked *t = tracked_of(e->handle, false);
    Ended &slot = recent[recent_count++ % RECENT_KEPT];
    strlcpy(slot.detail, t ? t->detail : "", sizeof slot.detail);
    operations_ended++;
    slot.view = {event_seq, id, t ? t->reading : -1, NAME(END_REASON_NAMES, e->reason), e->attempt,
                 NAME(OUTCOME_NAMES, tickretry_last_outcome(e->handle)), slot.detail,
                 t ? millis() - t->begun_at : 0};
    if (t) t->used = false;
  }
}

static void note_pass() {
  uint32_t now = millis();
  if (passes++ > 0) {
    last_gap_ms = now - last_pass_at;
    if (last_gap_ms > max_gap_ms) max_gap_ms = last_gap_ms;
    gap_histogram[last_gap_ms < 99 ? last_gap_ms : 99]++;
  }
  last_pass_at = now;
}

static uint32_t p99_gap_ms() {
  uint32_t total = 0, seen = 0;
  for (uint16_t n : gap_histogram) total += n;
  uint32_t rank = (99 * total + 99) / 100;
  for (uint32_t ms = 0; ms < 100; ms++)
    if ((seen += gap_histogram[ms]) >= rank && seen > 0) return ms + 1;
  return 0;
}

// The upload URL as it may be shown: credentials replaced by "***" (never echoed).
static void without_credentials(const char *url, char *out, size_t size) {
  const char *scheme = strstr(url, "://");
  const char *at = scheme ? strchr(scheme + 3, '@') : nullptr;
  const char *slash = scheme ? strchr(scheme + 3, '/') : nullptr;
  if (!at || (slash && slash < at)) {
    strlcpy(out, url, size);
    return;
  }
  snprintf(out, size, "%.*s***%s", int(scheme + 3 - url), url, at);
}

// Headers the handlers read; WebServer keeps only those it is told of.
static const char *COLLECTED[] = {"Origin", "Referer", "Sec-Fetch-Site", "X-Device-Password"};

static void send_json(int status, const char *key, const String &text) {
  String body = String("{\"ok\":") + (status == 200 ? "true" : "false") + ",\"" + key + "\":\"";
  for (char c : text) body += (c == '"' || c == '\\') ? String('\\') + c : String(c);
  body += "\"}";
  server.sendHeader("Cache-Control", "no-store");
  if (status >= 400) server.sendHeader("Connection", "close");
  server.send(status, "application/json", body);
}
static void answer_ok(const String &message) { send_json(200, "message", message); }
static void refuse(int status, const String &error) { send_json(status, "error", error); }

// Only names of this device reach it: its own addresses (no DNS rebinding).
static bool host_allowed() {
  String host = server.hostHeader();
  int colon = host.indexOf(':');
  if (colon >= 0) host = host.substring(0, colon);
  return host == WiFi.softAPIP().toString() || host == WiFi.localIP().toString();
}

// A browser says a post comes from this page (Sec-Fetch-Site, then Origin, else Referer).
// With the Host checked first, a rebinding page cannot make its own name pass here.
static bool same_origin() {
  String own = "http://" + server.hostHeader();
  String site = server.header("Sec-Fetch-Site");
  String origin = server.header("Origin");
  String referer = server.header("Referer");
  return (site.length() == 0 || site == "same-origin" || site == "none") &&
         (origin.length() ? origin == own : referer.length() == 0 || referer == own || referer.startsWith(own + "/"));
}

static app_password_guess_limit guesses;

// The device password of a post, under the brute-force limit: a check the limit refuses
// costs no PBKDF2, so a flood of guesses does not hold up the loop.
static bool password_given() {
  String stored = prefs.getString("devpw");
  if (stored.length() == 0) {
    refuse(403, PAGE_MSG_SET_PASSWORD_FIRST);
    return false;
  }
  String given = server.header("X-Device-Password");
  if (given.length() == 0) {
    refuse(401, PAGE_MSG_WRONG_PASSWORD);
    return false;
  }
  uint32_t wait_ms = app_password_guess_wait_ms(&guesses, millis());
  if (wait_ms > 0) {
    server.sendHeader("Retry-After", String((unsigned long)(wait_ms + 999) / 1000));
    refuse(429, PAGE_MSG_TOO_MANY_GUESSES);
    return false;
  }
  if (!app_password_check(stored.c_str(), given.c_str())) {
    app_password_guess_wrong(&guesses, millis());
    refuse(401, PAGE_MSG_WRONG_PASSWORD);
    return false;
  }
  return true;
}

// What every route of the contract (generated/page_routes.h) passes before its handler:
// the Host (every route, not only the files), for a post its origin, then its guard.
template <void (*handler)(), int guard>
static void routed() {
  if (!host_allowed()) return server.send(421, "text/plain", PAGE_MSG_WRONG_HOST "\n");
  if (server.method() == HTTP_POST && !same_origin()) return refuse(403, PAGE_MSG_CROSS_SITE);
  if (guard != PAGE_GUARD_OPEN && !nvs_ok) return refuse(503, PAGE_MSG_STORE_FAILED);
  bool first_setup = guard == PAGE_GUARD_FIRST_SETUP && prefs.getString("devpw").length() == 0;
  if (guard != PAGE_GUARD_OPEN && !first_setup && !password_given()) return;
  handler();
}

static const uint8_t *active_module();
static size_t active_module_size();

static void security_headers() {
  server.sendHeader("Content-Security-Policy",
                    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; "
                    "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  server.sendHeader("X-Content-Type-Options", "nosniff");
}

// The module the playground runs, straight from flash (or RAM, an uploaded one).
static void handle_module_bytes() {
  security_headers();
  server.send_P(200, "application/wasm", reinterpret_cast<const char *>(active_module()), active_module_size());
}

// Every file of the page, straight from flash: what no route of the contract names.
static void handle_file() {
  if (server.method() != HTTP_GET) return server.send(405, "text/plain", PAGE_MSG_WRONG_METHOD "\n");
  const String uri = server.uri();
  security_headers();
  for (const page_asset &a : PAGE_ASSETS) {
    if (uri != a.path) continue;
    server.sendHeader("Content-Encoding", "gzip");
    server.send_P(200, a.type, reinterpret_cast<const char *>(a.gzip), a.length);
    return;
  }
  server.send(404, "text/plain", PAGE_MSG_NOT_FOUND "\n");
}

// The live operations as the status shows them, into `ops`; how many.
static uint32_t status_operations(status_operation *ops, uint32_t now) {
  uint32_t n = 0;
  for (const Tracked &t : tracked) {
    if (!t.used) continue;
    int32_t h = t.handle, state = tickretry_state(h);
    if (state < 0 || state == TICKRETRY_STATE_DONE) continue;
    bool has_deadline = tickretry_op_flags(h) & TICKRETRY_OP_FLAG_HAS_DEADLINE;
    ops[n++] = {tickretry_operation_id(h),
                tickretry_slot(h),
                t.reading,
                NAME(STATE_NAMES, state),
                tickretry_attempt(h),
                int32_t(UPLOAD_POLICY.max_attempts),
                {state == TICKRETRY_STATE_WAITING, tickretry_ticks_until(now, tickretry_next_attempt_at(h))},
                {state == TICKRETRY_STATE_IN_FLIGHT, tickretry_ticks_until(now, tickretry_attempt_deadline(h))},
                {has_deadline, tickretry_ticks_until(now, tickretry_deadline(h))},
                NAME(OUTCOME_NAMES, tickretry_last_outcome(h)),
                t.detail};
  }
  return n;
}

// The store and power groups.
static void status_store(app_status *s) {
  s->readings_dropped = uploads_dropped;  // a board takes no reading it cannot begin: no queue
  s->store_where = nvs_ok ? "NVS" : "NVS (would not open)";
  s->store_writes = kept_writes;
  s->store_write_failures = kept_write_failures;
  s->store_operations_ended = operations_ended;
  s->store_writes_per_operation = {operations_ended > 0, operations_ended ? double(kept_writes) / operations_ended : 0};
  s->store_flash_life_years = {false, 0};  // the simulator's NVS model computes it (docs/device.md)
  s->store_bytes = sizeof kept;
  s->store_image_bytes = kept.length;
  s->store_max_write_ms = max_write_ms;
  s->power_kind = boot_kind;
  s->power_count = boots;
  s->power_elapsed_ms = boot_elapsed_ms;
  s->power_restored_operations = boot_restored;
}

// The last ended operations, newest first, and the last events, oldest first.
static void status_history(app_status *s) {
  static status_ended ended[RECENT_KEPT];
  static status_event ordered[EVENTS_KEPT];
  uint32_t shown = recent_count < RECENT_KEPT ? recent_count : RECENT_KEPT;
  for (uint32_t i = 0; i < shown; i++) ended[i] = recent[(recent_count - 1 - i) % RECENT_KEPT].view;
  s->recent = ended;
  s->recent_count = shown;
  uint32_t first = event_seq > EVENTS_KEPT ? event_seq - EVENTS_KEPT : 0;
  for (uint32_t i = first; i < event_seq; i++) ordered[i - first] = events[i % EVENTS_KEPT];
  s->events = ordered;
  s->event_count = event_seq - first;
}

// The sessions and the broker settings (the password only as set), for the status.
static void status_connections(app_status *s, uint32_t now) {
  static status_session sessions[SESSION_COUNT];
  s->sessions = sessions;
  s->session_count = scheduler_ok ? sessions_status(sessions, now) : 0;
  s->broker_url = broker_settings.url;
  s->broker_client_id = broker_settings.client_id;
  s->broker_username = broker_settings.username;
  s->broker_password_set = broker_settings.password[0] != '\0';
  s->broker_topic = broker_settings.topic;
}

static void handle_status() {
  static status_operation ops[TICKRETRY_LIMIT_OPERATIONS];
  static char json[12 * 1024];
  static char shown_url[sizeof upload_url];
  static status_memo memo;  // what the last answer wrote of each group: a poll gets what changed
  app_status s = {};
  s.name = device_id;
#if TICKRETRY_BACKEND_WASM3
  s.backend = "wasm3";
  s.module_upload = 1;
#else
  s.backend = "wasm2c";  // the module is compiled in: no upload
#endif
  s.abi_version = scheduler_ok ? tickretry_abi_version() : 0;
  uint32_t now = millis();
  s.now = now;
  s.wall_ms = wall_ms();
  s.events_since = app_status_since(server.arg("since").c_str());
  s.memo = &memo;
  s.passes = passes;
  s.last_gap_ms = last_gap_ms;
  s.max_gap_ms = max_gap_ms;
  s.p99_gap_ms = p99_gap_ms();
  s.budget_on = RETRY_BUDGET.capacity > 0;
  if (scheduler_ok) {
    s.tokens_milli = tickretry_tokens();
    for (int i = 0; i < TICKRETRY_COUNTER_COUNT; i++) s.counters[i] = tickretry_counter(i);
    s.operation_count = status_operations(ops, now);
  }
  s.operations = ops;
  status_store(&s);
  status_history(&s);
  String ssid = prefs.getString("ssid");
  without_credentials(upload_url, shown_url, sizeof shown_url);
  s.ssid = ssid.c_str();
  s.upstream_url = shown_url;
  s.password_set = prefs.getString("pass").length() > 0;
  s.app_password_set = prefs.getString("devpw").length() > 0;
  status_connections(&s, now);
  if (app_status_json(&s, json, sizeof json) == 0) return server.send(500, "text/plain", PAGE_MSG_STATUS_TOO_LARGE "\n");
  server.sendHeader("Cache-Control", "no-store");
  server.send(200, "application/json", json);
}

// The first setup sets the device password without one (routed() let it through only
// while none is stored; WebServer runs one request at a time, so two first setups cannot
// interleave); changing it needs the current one.
static void handle_password() {
  bool first = prefs.getString("devpw").length() == 0;
  String password = server.arg("password");
  if (!app_password_acceptable(password.c_str()) || strlen(password.c_str()) != password.length()) {
    return refuse(400, PAGE_MSG_PASSWORD_RULE);
  }
  uint8_t salt[APP_PASSWORD_SALT_BYTES];
  esp_fill_random(salt, sizeof salt);
  char stored[APP_PASSWORD_STORED_MAX];
  if (app_password_hash(password.c_str(), salt, stored, sizeof stored) != 0) {
    return refuse(500, PAGE_MSG_PASSWORD_HASH_FAILED);
  }
  if (prefs.putString("devpw", stored) != strlen(stored)) return refuse(507, PAGE_MSG_STORE_FAILED);
  answer_ok(first ? PAGE_MSG_PASSWORD_SET : PAGE_MSG_PASSWORD_CHANGED);
}

static void restart_soon() {
  restart_at = tickretry_tick_after(millis(), 1000);  // after the answer has left; never delay() here
  restart_pending = true;
}

// The broker fields of the form (a field it does not carry keeps its stored value), checked
// as the simulator checks them (app_broker.c); into `out` when they pass.
static app_broker_problem broker_form(BrokerSettings *out) {
  const String stored[] = {broker_settings.url, broker_settings.client_id, broker_settings.username,
                           broker_settings.password, broker_settings.topic};
  static const char *const names[] = {"brokerUrl", "brokerClientId", "brokerUsername", "brokerPassword",
                                      "brokerTopic"};
  String v[5];
  for (int i = 0; i < 5; i++) v[i] = server.hasArg(names[i]) ? server.arg(names[i]) : stored[i];
  app_broker_form form = {v[0].c_str(), v[1].c_str(), v[2].c_str(), v[3].c_str(), v[4].c_str(),
                             v[0].length(), v[1].length(), v[2].length(), v[3].length(), v[4].length()};
  app_broker_problem problem = app_broker_check(&form);
  if (problem != APP_BROKER_OK) return problem;
  strlcpy(out->url, v[0].c_str(), sizeof out->url);
  strlcpy(out->client_id, v[1].c_str(), sizeof out->client_id);
  strlcpy(out->username, v[2].c_str(), sizeof out->username);
  strlcpy(out->password, v[3].c_str(), sizeof out->password);
  strlcpy(out->topic, v[4].c_str(), sizeof out->topic);
  return APP_BROKER_OK;
}

static bool store_broker(const BrokerSettings *b) {
  return prefs.putString("mqurl", b->url) == strlen(b->url) &&
         prefs.putString("mqid", b->client_id) == strlen(b->client_id) &&
         prefs.putString("mquser", b->username) == strlen(b->username) &&
         prefs.putString("mqpass", b->password) == strlen(b->password) &&
         prefs.putString("mqtopic", b->topic) == strlen(b->topic);
}

// The same checks as the simulator's (app_settings.c, tested beside
// host/tools/src/device/settings.ts); a form with any bad field stores nothing. Hidden
// credentials in the URL ("***") are put back only for their own scheme, host and port.
static void handle_settings() {
  String ssid = server.arg("ssid"), pass = server.arg("password"), url = server.arg("upstreamUrl");
  app_settings_problem problem =
      app_settings_check(ssid.c_str(), ssid.length(), pass.c_str(), pass.length(), url.c_str(), url.length());
  if (problem != APP_SETTINGS_OK) return refuse(400, app_settings_meaning(problem));
  BrokerSettings broker;
  app_broker_problem broker_problem = broker_form(&broker);
  if (broker_problem != APP_BROKER_OK) return refuse(400, app_broker_meaning(broker_problem));
  char merged[sizeof upload_url];
  app_settings_credentials_result credentials = app_settings_credentials(upload_url, url.c_str(), merged, sizeof merged);
  if (credentials != APP_SETTINGS_CREDENTIALS_OK) return refuse(400, app_settings_credentials_meaning(credentials));
  bool stored = prefs.putString("ssid", ssid) == ssid.length() && prefs.putString("pass", pass) == pass.length() &&
                prefs.putString("url", merged) == strlen(merged) && store_broker(&broker);
  if (!stored) return refuse(507, PAGE_MSG_STORE_FAILED);
  prefs.putUInt(WIFI_FAILS_KEY, 0);  // new settings get their own tries (see wifi_fallback)
  answer_ok(PAGE_MSG_SETTINGS_SAVED_RESTARTING);
  restart_soon();
}

static bool upload_asked;

static void handle_upload() {
  upload_asked = true;
  answer_ok(PAGE_MSG_UPLOAD_BEGUN);
}

// "Reboot" and "Deep sleep for N s", as the simulator has them: after the answer has left,
// the board restarts (and resumes from RTC memory) or sleeps (and resumes from it).
static uint32_t sleep_asked_ms;  // 0: none asked for

static void handle_reboot() {
  answer_ok(PAGE_MSG_REBOOT);
  restart_soon();
}

static void handle_sleep() {
  String text = server.arg("s");
  bool digits = text.length() >= 1 && text.length() <= 4;
  for (char c : text) digits &= c >= '0' && c <= '9';
  unsigned long seconds = digits ? strtoul(text.c_str(), nullptr, 10) : 0;
  if (seconds < 1 || seconds > 3600) return refuse(400, PAGE_MSG_SLEEP_RULE);
  answer_ok(PAGE_MSG_SLEEP);
  sleep_asked_ms = seconds * 1000;
  restart_at = tickretry_tick_after(millis(), 1000);
}

static void handle_loop_reset() {
  max_gap_ms = 0;
  memset(gap_histogram, 0, sizeof gap_histogram);
  answer_ok(PAGE_MSG_LOOP_RESET);
}

#if TICKRETRY_BACKEND_WASM3
// Replacing the module over the air: the upload (the module, then the build key's
// Ed25519 signature over it, `npm run sign`) arrives as a raw application/octet-stream
// body into RAM (wasm3 parses it in place, so it must outlive the runtime). Its signature
// is checked with libsodium before wasm3 sees a byte of it; then it is swapped in between
// two passes. tickretry_wasm3_open carries the whole state across (save, open, restore),
// so uploads in flight go on and their answers count; a module that fails to load or
// refuses the image is refused, and the embedded one runs on with the state.
#define MODULE_LIMIT (64 * 1024)
#define MODULE_VERSION_KEY "modver"  // the highest module version accepted
static uint8_t *incoming;
static size_t incoming_size;
static bool incoming_too_large;
static uint8_t *active;  // the replaced module's bytes, kept while it runs
static size_t active_size;

static void drop_incoming() {
  free(incoming);
  incoming = nullptr;
  incoming_size = 0;
}

// The raw body as it arrives, before routed() runs: nothing is kept for a request whose
// Host is not this device's, and an aborted upload frees what it had.
static void receive_module() {
  HTTPRaw &raw = server.raw();
  if (raw.status == RAW_START) {
    drop_incoming();
    incoming_too_large = !host_allowed();
  } else if (raw.status == RAW_ABORTED) {
    drop_incoming();
  } else if (raw.status == RAW_WRITE && !incoming_too_large) {
    if (incoming_size + raw.currentSize > MODULE_LIMIT) {
      incoming_too_large = true;
      return;
    }
    uint8_t *grown = static_cast<uint8_t *>(realloc(incoming, incoming_size + raw.currentSize));
    if (!grown) return;
    memcpy(grown + incoming_size, raw.buf, raw.currentSize);
    incoming = grown;
    incoming_size += raw.currentSize;
  }
}

static void start_scheduler();

static void handle_module() {
  if (!incoming || incoming_too_large) {
    drop_incoming();
    return refuse(incoming_too_large ? 413 : 400, incoming_too_large ? PAGE_MSG_MODULE_TOO_LARGE : PAGE_MSG_NO_MODULE);
  }
  size_t module_size = 0;
  module_signature_result signature =
      module_signature_check(incoming, incoming_size, tickretry_build_key, &module_size);
  if (signature != MODULE_SIGNATURE_OK) {
    drop_incoming();
    return refuse(422, String(PAGE_MSG_MODULE_REFUSED) + module_signature_meaning(signature) + ".");
  }
  // Anti-rollback: never below the highest version this board accepted (module_signature.h).
  int64_t version = module_version(incoming, module_size);
  if (version < int64_t(prefs.getUInt(MODULE_VERSION_KEY, 0))) {
    drop_incoming();
    return refuse(422, PAGE_MSG_MODULE_ROLLED_BACK);
  }
  int32_t result = tickretry_wasm3_open(incoming, module_size, millis());
  if (result == TICKRETRY_RESULT_OK || result == TICKRETRY_ERROR_NOT_INITIALIZED) {
    free(active);
    active = incoming;
    active_size = module_size;
    if (version > int64_t(prefs.getUInt(MODULE_VERSION_KEY, 0)) &&
        prefs.putUInt(MODULE_VERSION_KEY, uint32_t(version)) != sizeof(uint32_t)) {
      kept_write_failures++;  // shown with the state's: the floor did not reach NVS
    }
    answer_ok(PAGE_MSG_MODULE_REPLACED);
    // No state to carry (the old engine had failed): start the new module afresh.
    if (result == TICKRETRY_ERROR_NOT_INITIALIZED) start_scheduler();
  } else {
    // Refused: the embedded module runs now (tickretry_wasm3_open fell back to it), so the
    // playground must get those bytes, not the last module that was replaced.
    free(incoming);
    free(active);
    active = nullptr;
    refuse(422, String(PAGE_MSG_MODULE_REFUSED) + tickretry_wasm3_refusal());
  }
  incoming = nullptr;
  incoming_size = 0;
  scheduler_ok = tickretry_error() == nullptr;
}

// An uploaded module that traps (wasm3 reports it as the call's error) is dropped for the
// embedded one, which takes up the state RTC memory kept at the last pass, as a reset
// would. One that loops never returns to here: the task watchdog resets the board, and
// the reset leaves the upload behind (it lived in RAM), so the embedded module resumes.
static void fall_back_to_embedded() {
  if (!active) return;
  Serial.println("the uploaded module failed: back to the embedded one");
  tickretry_close();
  free(active);
  active = nullptr;
  start_scheduler();
}

static const uint8_t *active_module() { return active ? active : tickretry_wasm; }
static size_t active_module_size() { return active ? active_size : TICKRETRY_WASM_LEN; }
#else
static void fall_back_to_embedded() {}  // the module is compiled in: nothing to fall back to
static const uint8_t *active_module() { return tickretry_wasm; }
static size_t active_module_size() { return TICKRETRY_WASM_LEN; }
#endif

// ---- setup() and loop() ---------------------------------------------------------------

static uint32_t next_upload_at;

// Writes the kept state to NVS when RTC memory holds one NVS lacks and NVS is due. A
// write NVS refuses (full, worn, failing) is counted and tried again after NVS_RETRY_MS;
// RTC memory still holds the state meanwhile.
static void keep_in_nvs() {
  if (!nvs_dirty || !nvs_ok || !tickretry_tick_reached(millis(), nvs_due_at)) return;
  uint32_t started = micros();
  bool written = prefs.putBytes(KEPT_KEY, &kept, sizeof kept) == sizeof kept;
  max_write_ms = max(max_write_ms, (micros() - started) / 1000.0f);
  if (!written) {
    kept_write_failures++;
    Serial.printf("NVS refused the kept state (%lu failures): trying again\n", (unsigned long)kept_write_failures);
    nvs_due_at = tickretry_tick_after(millis(), NVS_RETRY_MS);
    return;
  }
  kept_writes++;
  nvs_dirty = false;
  nvs_due_at = tickretry_tick_after(millis(), NVS_EVERY_MS);
}

// Saves the image into RTC memory when tickretry_changes() moved (or when `always`), and
// into NVS when that is due (keep_in_nvs).
static void keep_state(bool always, uint32_t now) {
  bool moved = tickretry_changes() != kept_changes;
  if (moved || always) {
    int32_t length = tickretry_save(now, kept.image, sizeof kept.image);
    if (length < 0) {
      Serial.printf("save refused: %ld\n", long(length));
      return;
    }
    kept.length = uint32_t(length);
    kept.slots = uploads.slots;
    kept.magic = KEPT_MAGIC;
    kept.sleep_ms = 0;  // deep_sleep_for sets these two after its save
    kept.next_upload_in = 0;
    kept.crc = kept_crc();
    nvs_dirty = nvs_dirty || moved;
    kept_changes = tickretry_changes();
  }
  keep_in_nvs();
}

// The kept state to take up: RTC memory's when its CRC holds (after a deep sleep or a
// software reset; it is the newer), else NVS's. A copy whose length or CRC is wrong is
// refused whole and said so. False when there is none.
static bool kept_found(bool *from_rtc) {
  *from_rtc = kept_valid();
  if (*from_rtc) return true;
  size_t stored = nvs_ok ? prefs.getBytesLength(KEPT_KEY) : 0;
  if (stored == 0) return false;
  if (stored != sizeof kept || prefs.getBytes(KEPT_KEY, &kept, sizeof kept) != sizeof kept || !kept_valid()) {
    Serial.printf("kept state in NVS is corrupt or of another build (%u bytes): starting afresh\n", unsigned(stored));
    return false;
  }
  return true;
}

// Takes up the kept state. After a deep sleep the time asleep is known (sleep_ms); after
// a reset none is known to have passed. Every connection closed meanwhile, so attempts
// that were in flight are lost. False when there is nothing to take up or the module
// refuses it (another ABI after a firmware update).
static bool resume_scheduler() {
  bool from_rtc;
  if (!kept_found(&from_rtc)) return false;
  bool woke = from_rtc && esp_sleep_get_wakeup_cause() == ESP_SLEEP_WAKEUP_TIMER;
  if (!woke) kept.sleep_ms = kept.next_upload_in = 0;
  for (char(&body)[BODY_BYTES] : kept.bodies) body[BODY_BYTES - 1] = '\0';  // strlcpy reads to a NUL
  uint32_t now = millis();
  int32_t restored = tickretry_restore(kept.image, kept.length, now, kept.sleep_ms,
                                       TICKRETRY_RESTORE_FLAG_ATTEMPTS_LOST);
  if (restored != TICKRETRY_RESULT_OK) {
    Serial.printf("kept state refused (%ld): starting afresh\n", long(restored));
    return false;
  }
  tickretry_loop_resume(&uploads, &hal, &kept.slots, 1);
  uint32_t left = kept.next_upload_in > kept.sleep_ms ? kept.next_upload_in - kept.sleep_ms : 0;
  next_upload_at = tickretry_tick_after(now, left);
  kept_changes = tickretry_changes();
  nvs_dirty = from_rtc;  // NVS may be older than what RTC memory kept
  Serial.printf("resumed after %s: %lu uploads live\n", woke ? "a deep sleep" : "a reset",
                (unsigned long)tickretry_loop_live(&uploads));
  boot_kind = woke ? "deep sleep" : "restart";
  boot_elapsed_ms = kept.sleep_ms;
  boot_restored = tickretry_loop_live(&uploads);
  return true;
}

static void start_afresh();

static void start_scheduler() {
  // open is a no-op when a module is already open (the one handle_module just loaded).
  scheduler_ok = tickretry_open() == TICKRETRY_RESULT_OK;
  if (!scheduler_ok) {
    Serial.println(tickretry_error());
    return;
  }
  if (!resume_scheduler()) start_afresh();
  // The sessions in the image, or new ones: the station's first connect is due at once.
  sessions_start(&uploads, &kept.sessions, prefs.getString("ssid").c_str(), prefs.getString("pass").c_str(),
                 &broker_settings, millis());
}

static void start_afresh() {
  memset(&kept, 0, sizeof kept);
  next_upload_at = millis();
  // A per-device, per-boot seed: the hardware RNG (true random while the radio is on)
  // mixed with the MAC, so two devices never start from the same operation ids.
  uint8_t mac[6];
  esp_read_mac(mac, ESP_MAC_WIFI_STA);
  uint32_t seed_lo = esp_random() ^ (uint32_t(mac[0]) << 8 | mac[1]);
  uint32_t seed_hi = esp_random() ^ (uint32_t(mac[2]) << 24 | uint32_t(mac[3]) << 16 | mac[4] << 8 | mac[5]);
  tickretry_init(seed_lo, seed_hi);
  tickretry_set_policy(0, &UPLOAD_POLICY);
  if (!sessions_set_policies()) Serial.println("a session policy was refused: no Wi-Fi session");
  tickretry_set_budget(&RETRY_BUDGET);
  tickretry_loop_init(&uploads, &hal);
  Serial.printf("scheduler ready, worst case per upload %ld ms\n", long(tickretry_worst_case(0)));
}

static void begin_upload(uint32_t now) {
  // Without this boot's epoch in NVS a key could repeat one an older image used: no upload.
  if (boot_epoch == 0) {
    uploads_dropped++;
    return;
  }
  int32_t handle = tickretry_loop_begin(&uploads, 0, now);
  if (handle < 0) {
    Serial.printf("upload not begun: %ld\n", long(handle));
    uploads_dropped++;
    return;
  }
  Tracked *t = tracked_of(handle, true);
  if (t) t->reading = int32_t(kept.upload_seq + 1);  // the seq the body below takes
  add_event("begin", tickretry_operation_id(handle), 0, 0, 0);
  // The body and the key's epoch are fixed at begin: every attempt sends the same bytes.
  int32_t slot = tickretry_slot(handle);
  if (slot >= 0) kept.epochs[slot] = boot_epoch;
#if UPLOAD_MQTT
  // The operation id travels in the payload ("op", as the simulator's consumer reads it),
  // with the boot epoch beside it: an older image's ids come back under an older epoch.
  snprintf(body_of(handle), BODY_BYTES,
           "{\"op\":%ld,\"reading\":%lu,\"epoch\":%lu,\"device\":\"%s\",\"uptime_ms\":%lu}",
           long(tickretry_operation_id(handle)), (unsigned long)++kept.upload_seq, (unsigned long)boot_epoch,
           device_id, (unsigned long)now);
#else
  snprintf(body_of(handle), BODY_BYTES, "{\"device\":\"%s\",\"seq\":%lu,\"uptime_ms\":%lu}", device_id,
           (unsigned long)++kept.upload_seq, (unsigned long)now);
#endif
}

// The timer's reading, and "Upload now" on the page (the HAL's begin_due).
// Over MQTT a reading begins only while the broker session is UP (the gate of
// docs/device.md): while it is down the due reading waits, spending no attempt and no
// budget, and begins in the pass after the session comes up. A board has no readings
// queue, so an outage longer than UPLOAD_EVERY_MS takes one reading, not one per minute.
static void begin_due(uint32_t now) {
#if UPLOAD_MQTT
  if (!sessions_broker_up()) return;
#endif
  bool station = WiFi.getMode() == WIFI_STA || WiFi.getMode() == WIFI_AP_STA;  // AP_STA: see wifi_fallback
  if (station && tickretry_tick_reached(now, next_upload_at)) {
    uint32_t next = tickretry_tick_after(next_upload_at, UPLOAD_EVERY_MS);
    next_upload_at = tickretry_tick_reached(now, next) ? tickretry_tick_after(now, UPLOAD_EVERY_MS) : next;
    begin_upload(now);
  }
  if (upload_asked) {
    upload_asked = false;
    begin_upload(now);
  }
}

// The setup access point is WPA2 with a per-device passphrase, made from the hardware RNG
// at first boot, kept in NVS and printed on the serial console at every boot that opens
// the access point (the label or the console is how its owner learns it). In radio range
// without it, an attacker sees the network's name and can jam or deauthenticate, but
// neither joins, nor claims the board, nor reads the device password on its way.
#define AP_PASS_KEY "appass"
#define AP_PASS_CHARS 12
static void access_point_passphrase(char *out) {
  static const char alphabet[] = "abcdefghjkmnpqrstuvwxyz23456789";  // no 0/o, 1/l/i
  String kept_pass = nvs_ok ? prefs.getString(AP_PASS_KEY) : String();
  if (kept_pass.length() == AP_PASS_CHARS) {
    strlcpy(out, kept_pass.c_str(), AP_PASS_CHARS + 1);
    return;
  }
  uint8_t random[AP_PASS_CHARS];
  esp_fill_random(random, sizeof random);
  for (int i = 0; i < AP_PASS_CHARS; i++) out[i] = alphabet[random[i] % (sizeof alphabet - 1)];
  out[AP_PASS_CHARS] = '\0';
  if (!nvs_ok || prefs.putString(AP_PASS_KEY, out) != AP_PASS_CHARS) Serial.println("NVS refused the AP passphrase: it changes at the next boot");
}

// After WIFI_MAX_FAILED_CONNECTS connect attempts of the Wi-Fi session in a row that got
// no IP (each within the session policy's 30 s: a wrong SSID or password), the board opens
// its access point beside the station, so that the page is reachable to fix the settings,
// while the session goes on trying; the count is kept in NVS, so the next boot opens the
// access point at once, and an IP or saving the settings resets it.
#define WIFI_MAX_FAILED_CONNECTS 3
static bool wifi_fails_noted;  // the count in NVS is this boot's last word on it

static void open_access_point(wifi_mode_t mode) {
  char passphrase[AP_PASS_CHARS + 1];
  access_point_passphrase(passphrase);
  WiFi.mode(mode);
  String name = String("tickretry-") + (device_id + 8);
  WiFi.softAP(name.c_str(), passphrase);
  Serial.printf("setup access point %s, passphrase %s, page http://192.168.4.1/\n", name.c_str(), passphrase);
}

static void wifi_fallback() {
  if (!nvs_ok || wifi_fails_noted) return;
  if (sessions_wifi_up()) {
    if (prefs.getUInt(WIFI_FAILS_KEY, 0) != 0) prefs.putUInt(WIFI_FAILS_KEY, 0);
    wifi_fails_noted = true;
    return;
  }
  if (sessions_wifi_failed_in_row() < WIFI_MAX_FAILED_CONNECTS) return;
  prefs.putUInt(WIFI_FAILS_KEY, WIFI_MAX_FAILED_CONNECTS);
  wifi_fails_noted = true;
  Serial.printf("Wi-Fi: %d connects without an IP\n", WIFI_MAX_FAILED_CONNECTS);
  if (WiFi.getMode() == WIFI_STA) open_access_point(WIFI_AP_STA);
}

// NVS, and this boot's epoch in it before anything else: the high half of every
// Idempotency-Key this boot begins (an epoch that cannot be kept stops uploads, shown on
// the page as readings dropped). Without NVS the board claims nothing: a corrupt or
// missing partition must not read as "no device password yet".
static void open_nvs() {
  nvs_ok = prefs.begin("tickretry", false);
  if (!nvs_ok) {
    Serial.println("NVS would not open: the page refuses every change and no upload begins");
    return;
  }
  uint32_t epoch = prefs.getUInt(EPOCH_KEY, 0) + 1;
  if (epoch != 0 && prefs.putUInt(EPOCH_KEY, epoch) == sizeof epoch) boot_epoch = epoch;
  else Serial.println("NVS refused the boot epoch: no upload begins this boot");
}

// The broker settings of the setup page (NVS), for the MQTT build's session.
static void load_broker_settings(BrokerSettings *b) {
  strlcpy(b->url, prefs.getString("mqurl").c_str(), sizeof b->url);
  strlcpy(b->client_id, prefs.getString("mqid").c_str(), sizeof b->client_id);
  strlcpy(b->username, prefs.getString("mquser").c_str(), sizeof b->username);
  strlcpy(b->password, prefs.getString("mqpass").c_str(), sizeof b->password);
  strlcpy(b->topic, prefs.getString("mqtopic", DEFAULT_BROKER_TOPIC).c_str(), sizeof b->topic);
}

void setup() {
  Serial.begin(115200);
  boots++;
  open_nvs();
  strlcpy(upload_url, prefs.getString("url", DEFAULT_UPLOAD_URL).c_str(), sizeof upload_url);
  load_broker_settings(&broker_settings);

  uint8_t mac[6];
  esp_read_mac(mac, ESP_MAC_WIFI_STA);
  snprintf(device_id, sizeof device_id, "%02x%02x%02x%02x%02x%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
           mac[5]);

  // The station connects once the scheduler runs: its Wi-Fi session's first attempt.
  String ssid = prefs.getString("ssid");
  if (ssid.length() && prefs.getUInt(WIFI_FAILS_KEY, 0) < WIFI_MAX_FAILED_CONNECTS) WiFi.mode(WIFI_STA);
  else open_access_point(ssid.length() ? WIFI_AP_STA : WIFI_AP);

#if !UPLOAD_MQTT
  requests = xQueueCreate(TICKRETRY_LIMIT_OPERATIONS, sizeof(UploadRequest));
  answers = xQueueCreate(2 * TICKRETRY_LIMIT_OPERATIONS, sizeof(UploadAnswer));
  xTaskCreate(upload_task, "upload", UPLOAD_TASK_STACK_BYTES, nullptr, 1, nullptr);
#endif

  server.collectHeaders(COLLECTED, sizeof COLLECTED / sizeof COLLECTED[0]);
  // The contract's table, every route through routed(): none can skip the Host check.
#define ROUTE(path, method, handler, guard, body) server.on(path, method, routed<handler, guard>);
  PAGE_ROUTES(ROUTE)
#undef ROUTE
  server.onNotFound(routed<handle_file, PAGE_GUARD_OPEN>);  // the page's files, from flash
#if TICKRETRY_BACKEND_WASM3
  Serial.println("backend: wasm3 " M3_VERSION);
#define ROUTE(path, method, handler, guard, body) server.on(path, method, routed<handler, guard>, receive_module);
  PAGE_ROUTES_WASM3(ROUTE)
#undef ROUTE
#else
  Serial.println("backend: wasm2c");
#endif
  server.begin();

  start_scheduler();  // after WiFi.mode(): esp_random() is truly random once the radio runs
  mark_boot();
}

// Saves the image into RTC memory, now, so that the wake restores it `sleep_ms` later,
// and sleeps. Attempts still out are lost with their connections: the restore counts them
// AMBIGUOUS and the idempotent upload retries them.
static void deep_sleep_for(uint32_t sleep_ms) {
  int32_t until_upload = tickretry_ticks_until(millis(), next_upload_at);
  keep_state(true, millis());
  kept.sleep_ms = sleep_ms;
  kept.next_upload_in = until_upload > 0 ? uint32_t(until_upload) : 0;
  Serial.printf("deep sleep for %lu ms\n", (unsigned long)sleep_ms);
  Serial.flush();
  esp_sleep_enable_timer_wakeup(uint64_t(sleep_ms) * 1000u);
  esp_deep_sleep_start();
}

#if DEEP_SLEEP
// Sleeps until the module has work or the next reading is due, when that is far enough
// away and no attempt is out (an answer would be lost with the connection).
static void sleep_if_idle(uint32_t due) {
  if (!scheduler_ok || WiFi.getMode() != WIFI_STA || restart_pending) return;
  for (uint32_t s = 0; s < TICKRETRY_LIMIT_OPERATIONS; s++) {
    if (uploads.slots.outstanding[s] > 0) return;
  }
  int32_t until_upload = tickretry_ticks_until(millis(), next_upload_at);
  uint32_t sleep_ms = tickretry_loop_sleep(due, until_upload > 0 ? uint32_t(until_upload) : 0);
  sleep_ms = tickretry_loop_sleep(sleep_ms, SLEEP_MAX_MS);
  if (sleep_ms < SLEEP_MIN_MS) return;
  deep_sleep_for(sleep_ms);
}
#endif

void loop() {
  uint32_t due = 0;
  note_pass();
  if (scheduler_ok) {
    due = tickretry_loop_pass(&uploads);  // applies what the event tasks queued; serves the page too
    if (tickretry_loop_fault(&uploads) != 0) {
      scheduler_ok = false;
      Serial.println(tickretry_error() ? tickretry_error() : "scheduler stopped");
      fall_back_to_embedded();
    }
  } else {
    server.handleClient();
  }
  wifi_fallback();
  if (restart_pending && tickretry_tick_reached(millis(), restart_at)) ESP.restart();
  if (sleep_asked_ms && tickretry_tick_reached(millis(), restart_at)) deep_sleep_for(sleep_asked_ms);
#if DEEP_SLEEP
  sleep_if_idle(due);
#endif
  // Until the module has work, but never long: answers, readings and the page come
  // sooner than next_due knows (it says IDLE, about 49 days, when nothing is live).
  // delay() yields this task to the upload task and Wi-Fi; no retry waits in it.
  delay(tickretry_loop_sleep(due, PASS_MAX_WAIT_MS));
}
