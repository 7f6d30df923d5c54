// tickretry on an ESP32: every UPLOAD_EVERY_MS the device uploads a small JSON reading
// over HTTP, retried by the scheduler module through boards/common/device_loop.c, with
// the operation id as Idempotency-Key. The loop never blocks: the HTTP attempt runs in
// its own FreeRTOS task and comes back through a queue, and the setup page is served on
// every pass. The scheduler's image is kept in RTC memory and NVS, so uploads go on
// after a deep sleep (DEEP_SLEEP=1 sleeps whenever nothing is in flight) or a reset.
// Without saved Wi-Fi credentials the board opens an access point with the setup page at
// http://192.168.4.1/. The page is boards/page/, the same files the simulator serves,
// embedded gzip-compressed in flash (setup_page.h, npm run embed); every change needs the
// device password (stored hashed) and comes from the page itself, and an uploaded module
// needs the build key's signature. Reads top to bottom: configuration, the upload task,
// the kept state, the device loop's HAL, the setup page, setup(), loop().
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

#include "device_loop.h"
#include "device_password.h"
#include "device_settings.h"
#include "device_status.h"
#include "device_trace.h"
#include "module_signature.h"
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
#define DEFAULT_UPLOAD_URL "http://192.168.1.10:8080/upload"
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
// full jitter, 5 s after a 429/503, all within 2 minutes.
// Fields are named (in declaration order, as C++ requires); a field not named is 0.
static const tickretry_policy UPLOAD_POLICY = {
    .max_attempts = 6,
    .attempt_timeout = 10000,
    .base_delay = 1000,
    .max_delay = 30000,
    .throttle_base_delay = 5000,
    .deadline = 120000,
    .flags = TICKRETRY_JITTER_FULL | TICKRETRY_POLICY_FLAG_IDEMPOTENT,
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

// ---- The upload task: HTTP off the main loop ------------------------------------------

struct UploadRequest {
  int32_t handle, attempt, operation_id;
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
static char upload_url[160];

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
      http.addHeader("Idempotency-Key", String(request.operation_id));
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

// ---- What survives a deep sleep and a reset ----------------------------------------

// The scheduler's image (tickretry_save: every operation with its operation id, the
// budget, the counters), the device loop's slots and each slot's upload body, so that an
// upload goes on with the same Idempotency-Key and the same bytes. RTC memory keeps it
// across a deep sleep, NVS across a reset or a power cut; both are written only when
// tickretry_changes() moved, and RTC memory once more right before a sleep.
struct Kept {
  uint32_t magic;   // KEPT_MAGIC once the fields below hold a saved state
  uint32_t length;  // of the image
  uint8_t image[TICKRETRY_IMAGE_AREA_BYTES];
  device_slots slots;
  char bodies[TICKRETRY_LIMIT_OPERATIONS][BODY_BYTES];  // per slot, fixed at begin
  uint32_t upload_seq;
  uint32_t sleep_ms;        // the deep sleep the board went into
  uint32_t next_upload_in;  // ms from the start of that sleep to the next reading
};
#define KEPT_MAGIC 0x6b747231u
#define KEPT_KEY "kept"

RTC_DATA_ATTR static Kept kept;
static uint32_t kept_changes;  // tickretry_changes() right after the last save
static Preferences prefs;

// ---- The device loop's HAL ----------------------------------------------------------

static device_loop uploads;
static char last_event[96] = "none yet";
static char device_id[13];

static char *body_of(int32_t handle) {
  static char none[BODY_BYTES];
  int32_t slot = tickretry_slot(handle);
  return slot >= 0 ? kept.bodies[slot] : none;
}

static uint32_t hal_ticks(void *) { return millis(); }

static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t) {
  UploadRequest request = {handle, attempt, operation_id, {0}};
  strlcpy(request.body, body_of(handle), sizeof request.body);
  if (xQueueSend(requests, &request, 0) == pdTRUE) return;
  // The task is backed up: nothing was sent, so say so now rather than time out later.
  UploadAnswer refused = {handle, attempt, HTTPC_ERROR_CONNECTION_REFUSED, false, 0};
  xQueueSend(answers, &refused, 0);
}

static void remember_answer(int32_t handle, int status);

static int hal_collect(void *, uint32_t, device_result *out) {
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

static void begin_due(uint32_t now);
static void keep_state(bool always, uint32_t now);

// Inside the pass, after it released what ended: a full table frees a slot first, and
// the upload's first attempt leaves in this pass, after persist.
static void hal_begin_due(void *, device_loop *, uint32_t now) { begin_due(now); }

// Before any attempt of the pass leaves (the persist-before-send rule).
static void hal_persist(void *, uint32_t now) { keep_state(false, now); }

static WebServer server(80);

static void hal_serve(void *) { server.handleClient(); }

static void record_event(const device_event *event);

static void hal_on_event(void *, const device_event *event) {
  device_event_format(event, last_event, sizeof last_event);
  Serial.println(last_event);
  record_event(event);
}

static const device_hal hal = {
    .ctx = nullptr,
    .ticks = hal_ticks,
    .collect = hal_collect,
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

static void remember_answer(int32_t handle, int status) {
  Tracked *t = tracked_of(handle, false);
  if (!t) return;
  if (status > 0) snprintf(t->detail, sizeof t->detail, "HTTP %d", status);
  else snprintf(t->detail, sizeof t->detail, "transport error %d", status);
}

static void add_event(const char *kind, int32_t operation_id, int32_t attempt, int32_t outcome, int32_t reason) {
  events[event_seq % EVENTS_KEPT] = {event_seq + 1, millis(), kind, operation_id, attempt,
                                     NAME(OUTCOME_NAMES, outcome), NAME(END_REASON_NAMES, reason)};
  event_seq++;
}

static void record_event(const device_event *e) {
  if (e->kind == DEVICE_EVENT_START) {
    tracked_of(e->handle, true);  // an operation restored after a sleep or reset shows from here
    add_event("start", e->operation_id, e->attempt, 0, 0);
  } else if (e->kind == DEVICE_EVENT_REPORT) {
    add_event("answer", tickretry_operation_id(e->handle), e->attempt, e->outcome, 0);
  } else {
    int32_t id = tickretry_operation_id(e->handle);
    add_event("end", id, e->attempt, 0, e->reason);
    Tracked *t = tracked_of(e->handle, false);
    Ended &slot = recent[recent_count++ % RECENT_KEPT];
    strlcpy(slot.detail, t ? t->detail : "", sizeof slot.detail);
    operations_ended++;
    slot.view = {id, t ? t->reading : -1, NAME(END_REASON_NAMES, e->reason), e->attempt,
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

// A post changes the device only when a browser says it comes from this page
// (Sec-Fetch-Site, then Origin, else Referer), and only with the device password.
static bool post_allowed(bool password_needed = true) {
  String own = "http://" + server.hostHeader();
  String site = server.header("Sec-Fetch-Site");
  String origin = server.header("Origin");
  String referer = server.header("Referer");
  bool same = (site.length() == 0 || site == "same-origin" || site == "none") &&
              (origin.length() ? origin == own : referer.length() == 0 || referer == own || referer.startsWith(own + "/"));
  if (!same) {
    refuse(403, "Posts come from this page only; nothing was changed.");
    return false;
  }
  if (!password_needed) return true;
  String stored = prefs.getString("devpw");
  if (stored.length() == 0) {
    refuse(403, "Set a device password first; nothing was changed.");
    return false;
  }
  if (!device_password_check(stored.c_str(), server.header("X-Device-Password").c_str())) {
    refuse(401, "Wrong or missing device password; nothing was changed.");
    return false;
  }
  return true;
}

static const uint8_t *active_module();
static size_t active_module_size();

// Every file of the page, and the module the playground runs, straight from flash.
static void handle_get() {
  if (server.method() != HTTP_GET) {
    server.send(405, "text/plain", "GET or POST\n");
    return;
  }
  if (!host_allowed()) {
    server.send(421, "text/plain", "this page answers to the device's own address only\n");
    return;
  }
  const String uri = server.uri();
  server.sendHeader("Content-Security-Policy",
                    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; "
                    "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  server.sendHeader("X-Content-Type-Options", "nosniff");
  if (uri == "/tickretry.wasm") {
    server.send_P(200, "application/wasm", reinterpret_cast<const char *>(active_module()), active_module_size());
    return;
  }
  for (const page_asset &a : PAGE_ASSETS) {
    if (uri != a.path) continue;
    server.sendHeader("Content-Encoding", "gzip");
    server.send_P(200, a.type, reinterpret_cast<const char *>(a.gzip), a.length);
    return;
  }
  server.send(404, "text/plain", "not found\n");
}

static void handle_status() {
  static status_operation ops[TICKRETRY_LIMIT_OPERATIONS];
  static status_ended ended[RECENT_KEPT];
  static status_event ordered[EVENTS_KEPT];
  static char json[12 * 1024];
  static char shown_url[sizeof upload_url];
  device_status s = {};
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
  s.passes = passes;
  s.last_gap_ms = last_gap_ms;
  s.max_gap_ms = max_gap_ms;
  s.p99_gap_ms = p99_gap_ms();
  s.budget_on = RETRY_BUDGET.capacity > 0;
  uint32_t n = 0;
  if (scheduler_ok) {
    s.tokens_milli = tickretry_tokens();
    for (int i = 0; i < TICKRETRY_COUNTER_COUNT; i++) s.counters[i] = tickretry_counter(i);
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
  }
  s.operations = ops;
  s.operation_count = n;
  s.readings_dropped = uploads_dropped;  // a board takes no reading it cannot begin: no queue
  s.store_where = "NVS";
  s.store_writes = kept_writes;
  s.store_operations_ended = operations_ended;
  s.store_writes_per_operation = {operations_ended > 0, operations_ended ? double(kept_writes) / operations_ended : 0};
  s.store_bytes = sizeof kept;
  s.store_image_bytes = kept.length;
  s.store_max_write_ms = max_write_ms;
  s.power_kind = boot_kind;
  s.power_count = boots;
  s.power_elapsed_ms = boot_elapsed_ms;
  s.power_restored_operations = boot_restored;
  uint32_t kept = recent_count < RECENT_KEPT ? recent_count : RECENT_KEPT;
  for (uint32_t i = 0; i < kept; i++) ended[i] = recent[(recent_count - 1 - i) % RECENT_KEPT].view;
  s.recent = ended;
  s.recent_count = kept;
  uint32_t first = event_seq > EVENTS_KEPT ? event_seq - EVENTS_KEPT : 0;
  for (uint32_t i = first; i < event_seq; i++) ordered[i - first] = events[i % EVENTS_KEPT];
  s.events = ordered;
  s.event_count = event_seq - first;
  String ssid = prefs.getString("ssid");
  without_credentials(upload_url, shown_url, sizeof shown_url);
  s.ssid = ssid.c_str();
  s.upstream_url = shown_url;
  s.password_set = prefs.getString("pass").length() > 0;
  s.device_password_set = prefs.getString("devpw").length() > 0;
  if (device_status_json(&s, json, sizeof json) == 0) {
    server.send(500, "text/plain", "status larger than its buffer\n");
    return;
  }
  server.sendHeader("Cache-Control", "no-store");
  server.send(200, "application/json", json);
}

// The first setup sets the device password without one; changing it needs the current one.
static void handle_password() {
  bool first = prefs.getString("devpw").length() == 0;
  if (!post_allowed(!first)) return;
  String password = server.arg("password");
  if (!device_password_acceptable(password.c_str()) || strlen(password.c_str()) != password.length()) {
    refuse(400, "The device password must be 8 to 64 printable ASCII characters.");
    return;
  }
  uint8_t salt[DEVICE_PASSWORD_SALT_BYTES];
  esp_fill_random(salt, sizeof salt);
  char stored[DEVICE_PASSWORD_STORED_MAX];
  if (device_password_hash(password.c_str(), salt, stored, sizeof stored) != 0) {
    refuse(500, "Could not hash the password; nothing was changed.");
    return;
  }
  prefs.putString("devpw", stored);
  answer_ok(first ? "Device password set." : "Device password changed.");
}

// The same checks as the simulator's (device_settings.c, tested beside
// host/tools/src/device/settings.ts); a form with any bad field stores nothing. Credentials in the URL are kept when the page sends back "***".
static void handle_save() {
  if (!post_allowed()) return;
  String ssid = server.arg("ssid"), pass = server.arg("password"), url = server.arg("upstreamUrl");
  device_settings_problem problem =
      device_settings_check(ssid.c_str(), ssid.length(), pass.c_str(), pass.length(), url.c_str(), url.length());
  if (problem != DEVICE_SETTINGS_OK) return refuse(400, device_settings_meaning(problem));
  if (url.length() >= sizeof upload_url) return refuse(400, "Upstream URL is too long.");
  int scheme = url.indexOf("://") + 3;
  if (url.substring(scheme).startsWith("***@")) {
    char stored_creds[sizeof upload_url];
    const char *old = strstr(upload_url, "://"), *at = old ? strchr(old + 3, '@') : nullptr;
    if (at) {
      snprintf(stored_creds, sizeof stored_creds, "%.*s", int(at - (old + 3)), old + 3);
      url = url.substring(0, scheme) + stored_creds + url.substring(scheme + 3);
    }
  }
  prefs.putString("ssid", ssid);
  prefs.putString("pass", pass);
  prefs.putString("url", url);
  answer_ok("Settings saved; restarting.");
  restart_at = tickretry_tick_after(millis(), 1000);  // after the answer has left; never delay() here
  restart_pending = true;
}

static bool upload_asked;

static void handle_upload() {
  if (!post_allowed()) return;
  upload_asked = true;
  answer_ok("Upload begun.");
}

// "Reboot" and "Deep sleep for N s", as the simulator has them: after the answer has left,
// the board restarts (and resumes from NVS) or sleeps (and resumes from RTC memory).
static uint32_t sleep_asked_ms;  // 0: none asked for

static void handle_reboot() {
  if (!post_allowed()) return;
  answer_ok("Reboot asked for: the board restarts and resumes from its kept state.");
  restart_at = tickretry_tick_after(millis(), 1000);
  restart_pending = true;
}

static void handle_sleep() {
  if (!post_allowed()) return;
  String text = server.arg("s");
  bool digits = text.length() >= 1 && text.length() <= 4;
  for (char c : text) digits &= c >= '0' && c <= '9';
  unsigned long seconds = digits ? strtoul(text.c_str(), nullptr, 10) : 0;
  if (seconds < 1 || seconds > 3600) return refuse(400, "A deep sleep is 1 to 3600 s, in plain decimal digits.");
  answer_ok("Deep sleep asked for: nothing runs until the board wakes and restores its image.");
  sleep_asked_ms = seconds * 1000;
  restart_at = tickretry_tick_after(millis(), 1000);
}

static void handle_reset() {
  if (!post_allowed()) return;
  max_gap_ms = 0;
  memset(gap_histogram, 0, sizeof gap_histogram);
  answer_ok("Loop maxima reset.");
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
static uint8_t *incoming;
static size_t incoming_size;
static bool incoming_too_large;
static uint8_t *active;  // the replaced module's bytes, kept while it runs
static size_t active_size;

static void receive_module() {
  HTTPRaw &raw = server.raw();
  if (raw.status == RAW_START) {
    free(incoming);
    incoming = nullptr;
    incoming_size = 0;
    incoming_too_large = false;
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
  if (!post_allowed()) return;
  if (!incoming || incoming_too_large) {
    refuse(incoming_too_large ? 413 : 400, incoming_too_large ? "A module is at most 64 KiB." : "No module received.");
    return;
  }
  size_t module_size = 0;
  module_signature_result signature =
      module_signature_check(incoming, incoming_size, tickretry_build_key, &module_size);
  if (signature != MODULE_SIGNATURE_OK) {
    free(incoming);
    incoming = nullptr;
    refuse(422, String("Module refused: ") + module_signature_meaning(signature) + ".");
    return;
  }
  int32_t result = tickretry_wasm3_open(incoming, module_size, millis());
  if (result == TICKRETRY_RESULT_OK || result == TICKRETRY_ERROR_NOT_INITIALIZED) {
    free(active);
    active = incoming;
    active_size = module_size;
    answer_ok("Module replaced.");
    // No state to carry (the old engine had failed): start the new module afresh.
    if (result == TICKRETRY_ERROR_NOT_INITIALIZED) start_scheduler();
  } else {
    free(incoming);
    refuse(422, String("Module refused: ") + tickretry_wasm3_refusal());
  }
  incoming = nullptr;
  incoming_size = 0;
  scheduler_ok = tickretry_error() == nullptr;
}

static const uint8_t *active_module() { return active ? active : tickretry_wasm; }
static size_t active_module_size() { return active ? active_size : TICKRETRY_WASM_LEN; }
#else
static const uint8_t *active_module() { return tickretry_wasm; }
static size_t active_module_size() { return TICKRETRY_WASM_LEN; }
#endif

// ---- setup() and loop() ---------------------------------------------------------------

static uint32_t next_upload_at;

// Saves the image when tickretry_changes() moved (or when `always`), into RTC memory and,
// when it moved, NVS.
static void keep_state(bool always, uint32_t now) {
  bool moved = tickretry_changes() != kept_changes;
  if (!moved && !always) return;
  int32_t length = tickretry_save(now, kept.image, sizeof kept.image);
  if (length < 0) {
    Serial.printf("save refused: %ld\n", long(length));
    return;
  }
  kept.length = uint32_t(length);
  kept.slots = uploads.slots;
  kept.magic = KEPT_MAGIC;
  if (moved) {
    uint32_t started = micros();
    prefs.putBytes(KEPT_KEY, &kept, sizeof kept);
    kept_writes++;
    max_write_ms = max(max_write_ms, (micros() - started) / 1000.0f);
  }
  kept_changes = tickretry_changes();
}

// Takes up the kept state: from RTC memory after a deep sleep (which lasted sleep_ms),
// else from NVS (a reset: no time is known to have passed). Every connection closed
// meanwhile, so attempts that were in flight are lost. False when there is nothing to
// take up or the module refuses it (another ABI after a firmware update).
static bool resume_scheduler() {
  bool woke = esp_sleep_get_wakeup_cause() == ESP_SLEEP_WAKEUP_TIMER && kept.magic == KEPT_MAGIC;
  if (!woke) {
    if (prefs.getBytesLength(KEPT_KEY) != sizeof kept) return false;
    prefs.getBytes(KEPT_KEY, &kept, sizeof kept);
    if (kept.magic != KEPT_MAGIC) return false;
    kept.sleep_ms = 0;
    kept.next_upload_in = 0;
  }
  uint32_t now = millis();
  int32_t restored = tickretry_restore(kept.image, kept.length, now, kept.sleep_ms,
                                       TICKRETRY_RESTORE_FLAG_ATTEMPTS_LOST);
  if (restored != TICKRETRY_RESULT_OK) {
    Serial.printf("kept state refused (%ld): starting afresh\n", long(restored));
    return false;
  }
  device_loop_resume(&uploads, &hal, &kept.slots, 1);
  uint32_t left = kept.next_upload_in > kept.sleep_ms ? kept.next_upload_in - kept.sleep_ms : 0;
  next_upload_at = tickretry_tick_after(now, left);
  kept_changes = tickretry_changes();
  Serial.printf("resumed after %s: %lu uploads live\n", woke ? "a deep sleep" : "a reset",
                (unsigned long)device_loop_live(&uploads));
  boot_kind = woke ? "deep sleep" : "restart";
  boot_elapsed_ms = kept.sleep_ms;
  boot_restored = device_loop_live(&uploads);
  return true;
}

static void start_scheduler() {
  // open is a no-op when a module is already open (the one handle_module just loaded).
  scheduler_ok = tickretry_open() == TICKRETRY_RESULT_OK;
  if (!scheduler_ok) {
    Serial.println(tickretry_error());
    return;
  }
  if (resume_scheduler()) return;
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
  tickretry_set_budget(&RETRY_BUDGET);
  device_loop_init(&uploads, &hal);
  Serial.printf("scheduler ready, worst case per upload %ld ms\n", long(tickretry_worst_case(0)));
}

static void begin_upload(uint32_t now) {
  int32_t handle = device_loop_begin(&uploads, 0, now);
  if (handle < 0) {
    Serial.printf("upload not begun: %ld\n", long(handle));
    uploads_dropped++;
    return;
  }
  Tracked *t = tracked_of(handle, true);
  if (t) t->reading = int32_t(kept.upload_seq + 1);  // the seq the body below takes
  add_event("begin", tickretry_operation_id(handle), 0, 0, 0);
  // The body is fixed at begin: every attempt of one operation sends the same bytes.
  snprintf(body_of(handle), BODY_BYTES, "{\"device\":\"%s\",\"seq\":%lu,\"uptime_ms\":%lu}", device_id,
           (unsigned long)++kept.upload_seq, (unsigned long)now);
}

// The timer's reading, and "Upload now" on the page (the HAL's begin_due).
static void begin_due(uint32_t now) {
  if (WiFi.getMode() == WIFI_STA && tickretry_tick_reached(now, next_upload_at)) {
    next_upload_at = tickretry_tick_after(next_upload_at, UPLOAD_EVERY_MS);
    begin_upload(now);
  }
  if (upload_asked) {
    upload_asked = false;
    begin_upload(now);
  }
}

void setup() {
  Serial.begin(115200);
  boots++;
  prefs.begin("tickretry", false);
  strlcpy(upload_url, prefs.getString("url", DEFAULT_UPLOAD_URL).c_str(), sizeof upload_url);

  uint8_t mac[6];
  esp_read_mac(mac, ESP_MAC_WIFI_STA);
  snprintf(device_id, sizeof device_id, "%02x%02x%02x%02x%02x%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
           mac[5]);

  String ssid = prefs.getString("ssid");
  if (ssid.length()) {
    WiFi.mode(WIFI_STA);
    WiFi.begin(ssid.c_str(), prefs.getString("pass").c_str());  // connects in the background
  } else {
    WiFi.mode(WIFI_AP);
    WiFi.softAP((String("tickretry-") + (device_id + 8)).c_str());
  }

  requests = xQueueCreate(TICKRETRY_LIMIT_OPERATIONS, sizeof(UploadRequest));
  answers = xQueueCreate(2 * TICKRETRY_LIMIT_OPERATIONS, sizeof(UploadAnswer));
  xTaskCreate(upload_task, "upload", UPLOAD_TASK_STACK_BYTES, nullptr, 1, nullptr);

  server.collectHeaders(COLLECTED, sizeof COLLECTED / sizeof COLLECTED[0]);
  server.on("/status.json", HTTP_GET, handle_status);
  server.on("/password", HTTP_POST, handle_password);
  server.on("/settings", HTTP_POST, handle_save);
  server.on("/upload", HTTP_POST, handle_upload);
  server.on("/loop/reset", HTTP_POST, handle_reset);
  server.on("/power/reboot", HTTP_POST, handle_reboot);
  server.on("/power/sleep", HTTP_POST, handle_sleep);
  server.onNotFound(handle_get);  // the page's files and the module, from flash
#if TICKRETRY_BACKEND_WASM3
  Serial.println("backend: wasm3 " M3_VERSION);
  server.on("/module", HTTP_POST, handle_module, receive_module);
#else
  Serial.println("backend: wasm2c");
#endif
  server.begin();

  start_scheduler();  // after WiFi.mode(): esp_random() is truly random once the radio runs
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
  uint32_t sleep_ms = device_loop_sleep(due, until_upload > 0 ? uint32_t(until_upload) : 0);
  sleep_ms = device_loop_sleep(sleep_ms, SLEEP_MAX_MS);
  if (sleep_ms < SLEEP_MIN_MS) return;
  deep_sleep_for(sleep_ms);
}
#endif

void loop() {
  uint32_t due = 0;
  note_pass();
  if (scheduler_ok) {
    due = device_loop_pass(&uploads);  // serves the page too
    if (device_loop_fault(&uploads) != 0) {
      scheduler_ok = false;
      Serial.println(tickretry_error() ? tickretry_error() : "scheduler stopped");
    }
  } else {
    server.handleClient();
  }
  if (restart_pending && tickretry_tick_reached(millis(), restart_at)) ESP.restart();
  if (sleep_asked_ms && tickretry_tick_reached(millis(), restart_at)) deep_sleep_for(sleep_asked_ms);
#if DEEP_SLEEP
  sleep_if_idle(due);
#endif
  // Until the module has work, but never long: answers, readings and the page come
  // sooner than next_due knows (it says IDLE, about 49 days, when nothing is live).
  // delay() yields this task to the upload task and Wi-Fi; no retry waits in it.
  delay(device_loop_sleep(due, PASS_MAX_WAIT_MS));
}
