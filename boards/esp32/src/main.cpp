// tickretry on an ESP32: every UPLOAD_EVERY_MS the device uploads a small JSON reading
// over HTTP, retried by the scheduler module through boards/common/device_loop.c, with
// the operation id as Idempotency-Key. The loop never blocks: the HTTP attempt runs in
// its own FreeRTOS task and comes back through a queue, and the setup page is served on
// every pass. The scheduler's image is kept in RTC memory and NVS, so uploads go on
// after a deep sleep (DEEP_SLEEP=1 sleeps whenever nothing is in flight) or a reset.
// Without saved Wi-Fi credentials the board opens an access point with the setup page at
// http://192.168.4.1/. Reads top to bottom: configuration, the upload task, the kept
// state, the device loop's HAL, the setup page, setup(), loop().
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
#include "device_trace.h"
#include "tickretry.h"
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

static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t operation_id) {
  UploadRequest request = {handle, attempt, operation_id, {0}};
  strlcpy(request.body, body_of(handle), sizeof request.body);
  if (xQueueSend(requests, &request, 0) == pdTRUE) return;
  // The task is backed up: nothing was sent, so say so now rather than time out later.
  UploadAnswer refused = {handle, attempt, HTTPC_ERROR_CONNECTION_REFUSED, false, 0};
  xQueueSend(answers, &refused, 0);
}

static int hal_collect(void *, uint32_t, device_result *out) {
  UploadAnswer answer;
  if (xQueueReceive(answers, &answer, 0) != pdTRUE) return 0;
  int32_t outcome = answer.status > 0 ? tickretry_classify_http(answer.status, answer.has_retry_after)
                                      : transport_outcome(answer.status);
  // A status outside 100..599 is no HTTP answer the module can place: nothing to retry.
  if (outcome < 0) outcome = TICKRETRY_OUTCOME_PERMANENT;
  *out = {.handle = answer.handle, .attempt = answer.attempt, .outcome = outcome, .retry_after = answer.retry_after_ms};
  return 1;
}

static WebServer server(80);

static void hal_serve(void *) { server.handleClient(); }

static void hal_on_event(void *, const device_event *event) {
  device_event_format(event, last_event, sizeof last_event);
  Serial.println(last_event);
}

static const device_hal hal = {
    .ctx = nullptr,
    .ticks = hal_ticks,
    .start_attempt = hal_start_attempt,
    .collect = hal_collect,
    .serve = hal_serve,
    .on_event = hal_on_event,
};

// ---- The setup page -----------------------------------------------------------------

static bool scheduler_ok;
static bool restart_pending;
static uint32_t restart_at;

static String escaped(const String &text) {
  String out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

static void handle_page() {
  String page = "<!doctype html><meta name=viewport content='width=device-width'><title>tickretry</title>";
  page += "<h1>tickretry " + String(device_id) + "</h1><p>";
  page += WiFi.getMode() == WIFI_AP ? String("Access point (no saved network)")
                                    : "Station, IP " + WiFi.localIP().toString();
  if (scheduler_ok) {
    page += "<p>Uploads live: " + String(device_loop_live(&uploads));
    page += ", succeeded: " + String(tickretry_counter(TICKRETRY_COUNTER_ENDED_SUCCEEDED));
    page += ", retries: " + String(tickretry_counter(TICKRETRY_COUNTER_RETRIES_SCHEDULED));
    page += ", tokens: " + String(tickretry_tokens());
  } else {
    const char *error = tickretry_error();
    page += "<p>Scheduler stopped: " + escaped(error ? error : "not started");
  }
  page += "<p>Last event: " + escaped(last_event);
  page += "<form method=post action=/save><p><label>Wi-Fi name <input name=ssid value=\"" +
          escaped(prefs.getString("ssid")) + "\"></label>";
  page += "<p><label>Password <input name=pass type=password></label>";
  page += "<p><label>Upload URL <input name=url size=40 value=\"" + escaped(upload_url) + "\"></label>";
  page += "<p><button>Save and restart</button></form>";
#if TICKRETRY_BACKEND_WASM3
  page += "<form method=post action=/module enctype=multipart/form-data><p><label>Scheduler module "
          "<input type=file name=module accept=.wasm></label> <button>Replace</button></form>";
#endif
  server.send(200, "text/html", page);
}

static void handle_save() {
  prefs.putString("ssid", server.arg("ssid"));
  if (server.arg("pass").length()) prefs.putString("pass", server.arg("pass"));
  prefs.putString("url", server.arg("url"));
  server.send(200, "text/plain", "Saved; restarting.");
  restart_at = tickretry_tick_after(millis(), 1000);  // after the answer has left; never delay() here
  restart_pending = true;
}

#if TICKRETRY_BACKEND_WASM3
// Replacing the module over the air: the upload lands in RAM (wasm3 parses it in place,
// so it must outlive the runtime) and is swapped in between two passes.
// tickretry_wasm3_open carries the whole state across (save, open, restore), so uploads
// in flight go on and their answers count; a module that fails to load or refuses the
// image is refused, and the embedded one runs on with the state.
static uint8_t *incoming;
static size_t incoming_size;
static uint8_t *active;  // the replaced module's bytes, kept while it runs

static void receive_module() {
  HTTPUpload &upload = server.upload();
  if (upload.status == UPLOAD_FILE_START) {
    free(incoming);
    incoming = nullptr;
    incoming_size = 0;
  } else if (upload.status == UPLOAD_FILE_WRITE) {
    uint8_t *grown = static_cast<uint8_t *>(realloc(incoming, incoming_size + upload.currentSize));
    if (!grown) return;
    memcpy(grown + incoming_size, upload.buf, upload.currentSize);
    incoming = grown;
    incoming_size += upload.currentSize;
  }
}

static void start_scheduler();

static void handle_module() {
  if (!incoming) {
    server.send(409, "text/plain", "No module received.");
    return;
  }
  int32_t result = tickretry_wasm3_open(incoming, incoming_size, millis());
  if (result == TICKRETRY_RESULT_OK || result == TICKRETRY_ERROR_NOT_INITIALIZED) {
    free(active);
    active = incoming;
    server.send(200, "text/plain", "Module replaced.");
    // No state to carry (the old engine had failed): start the new module afresh.
    if (result == TICKRETRY_ERROR_NOT_INITIALIZED) start_scheduler();
  } else {
    free(incoming);
    server.send(422, "text/plain", String("Module refused: ") + tickretry_wasm3_refusal());
  }
  incoming = nullptr;
  incoming_size = 0;
  scheduler_ok = tickretry_error() == nullptr;
}
#endif

// ---- setup() and loop() ---------------------------------------------------------------

static uint32_t next_upload_at;

// Saves the image when tickretry_changes() moved (or when `always`), into RTC memory and,
// when it moved, NVS.
static void keep_state(bool always) {
  bool moved = tickretry_changes() != kept_changes;
  if (!moved && !always) return;
  int32_t length = tickretry_save(millis(), kept.image, sizeof kept.image);
  if (length < 0) {
    Serial.printf("save refused: %ld\n", long(length));
    return;
  }
  kept.length = uint32_t(length);
  kept.slots = uploads.slots;
  kept.magic = KEPT_MAGIC;
  if (moved) prefs.putBytes(KEPT_KEY, &kept, sizeof kept);
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

static void begin_upload() {
  int32_t handle = device_loop_begin(&uploads, 0);
  if (handle < 0) {
    Serial.printf("upload not begun: %ld\n", long(handle));
    return;
  }
  // The body is fixed at begin: every attempt of one operation sends the same bytes.
  snprintf(body_of(handle), BODY_BYTES, "{\"device\":\"%s\",\"seq\":%lu,\"uptime_ms\":%lu}", device_id,
           (unsigned long)++kept.upload_seq, (unsigned long)millis());
}

void setup() {
  Serial.begin(115200);
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

  server.on("/", HTTP_GET, handle_page);
  server.on("/save", HTTP_POST, handle_save);
#if TICKRETRY_BACKEND_WASM3
  Serial.println("backend: wasm3 " M3_VERSION);
  server.on("/module", HTTP_POST, handle_module, receive_module);
#else
  Serial.println("backend: wasm2c");
#endif
  server.begin();

  start_scheduler();  // after WiFi.mode(): esp_random() is truly random once the radio runs
}

#if DEEP_SLEEP
// Sleeps until the module has work or the next reading is due, when that is far enough
// away and no attempt is out (an answer would be lost with the connection). The image
// goes to RTC memory first, saved now, so that the wake restores it `sleep_ms` later.
static void sleep_if_idle(uint32_t due) {
  if (!scheduler_ok || WiFi.getMode() != WIFI_STA || restart_pending) return;
  for (uint32_t s = 0; s < TICKRETRY_LIMIT_OPERATIONS; s++) {
    if (uploads.slots.outstanding[s] > 0) return;
  }
  int32_t until_upload = tickretry_ticks_until(millis(), next_upload_at);
  uint32_t sleep_ms = device_loop_sleep(due, until_upload > 0 ? uint32_t(until_upload) : 0);
  sleep_ms = device_loop_sleep(sleep_ms, SLEEP_MAX_MS);
  if (sleep_ms < SLEEP_MIN_MS) return;
  keep_state(true);
  kept.sleep_ms = sleep_ms;
  kept.next_upload_in = uint32_t(until_upload);
  Serial.printf("deep sleep for %lu ms\n", (unsigned long)sleep_ms);
  Serial.flush();
  esp_sleep_enable_timer_wakeup(uint64_t(sleep_ms) * 1000u);
  esp_deep_sleep_start();
}
#endif

void loop() {
  uint32_t due = 0;
  if (scheduler_ok) {
    due = device_loop_pass(&uploads);  // serves the page too
    if (device_loop_fault(&uploads) != 0) {
      scheduler_ok = false;
      Serial.println(tickretry_error() ? tickretry_error() : "scheduler stopped");
    }
  } else {
    server.handleClient();
  }
  // After the pass, which has released what ended: a full table frees a slot first.
  bool station = WiFi.getMode() == WIFI_STA;
  if (scheduler_ok && station && tickretry_tick_reached(millis(), next_upload_at)) {
    next_upload_at = tickretry_tick_after(next_upload_at, UPLOAD_EVERY_MS);
    begin_upload();
    due = 0;  // its first attempt is due now
  }
  if (scheduler_ok) keep_state(false);
  if (restart_pending && tickretry_tick_reached(millis(), restart_at)) ESP.restart();
#if DEEP_SLEEP
  sleep_if_idle(due);
#endif
  // Until the module has work, but never long: answers, readings and the page come
  // sooner than next_due knows (it says IDLE, about 49 days, when nothing is live).
  // delay() yields this task to the upload task and Wi-Fi; no retry waits in it.
  delay(device_loop_sleep(due, PASS_MAX_WAIT_MS));
}
