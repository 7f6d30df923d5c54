// tickretry on an ESP32: every UPLOAD_EVERY_MS the device uploads a small JSON reading
// over HTTP, retried by the scheduler module through boards/common/device_loop.c, with
// the operation id as Idempotency-Key. The loop never blocks: the HTTP attempt runs in
// its own FreeRTOS task and comes back through a queue, and the setup page is served on
// every pass. Without saved Wi-Fi credentials the board opens an access point with the
// setup page at http://192.168.4.1/. Reads top to bottom: configuration, the upload task,
// the device loop's HAL, the setup page, setup(), loop().
#include <Arduino.h>
#include <HTTPClient.h>
#include <Preferences.h>
#include <WebServer.h>
#include <WiFi.h>
#include <esp_system.h>
#if __has_include(<esp_mac.h>)  // ESP-IDF 5 moved these out of esp_system.h
#include <esp_mac.h>
#include <esp_random.h>
#endif

#include "device_loop.h"
#include "device_trace.h"
#include "tickretry.h"
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

// Idempotent because the server deduplicates on Idempotency-Key, so a timed-out or
// ambiguous attempt may be retried. 6 attempts of 10 s, backoff 1 s doubling to 30 s with
// full jitter, 5 s after a 429/503, all within 2 minutes.
static const tickretry_policy UPLOAD_POLICY = {
    6, 10000, 1000, 30000, 5000, 120000, TICKRETRY_JITTER_FULL | TICKRETRY_POLICY_FLAG_IDEMPOTENT};
// The SRE / Finagle 10% budget of docs/ABI.md: retries may add at most a tenth to the load.
static const tickretry_budget RETRY_BUDGET = {10000, 10000, 1000, 1000, 0, 0, 100, 0, 0};

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

// ---- The device loop's HAL ----------------------------------------------------------

static device_loop uploads;
static char bodies[TICKRETRY_LIMIT_OPERATIONS][BODY_BYTES];  // per slot, fixed at begin
static char last_event[96] = "none yet";
static char device_id[13];

static char *body_of(int32_t handle) { return bodies[handle & ((1 << TICKRETRY_LIMIT_SLOT_BITS) - 1)]; }

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
  *out = {answer.handle, answer.attempt, outcome, answer.retry_after_ms};
  return 1;
}

static WebServer server(80);

static void hal_serve(void *) { server.handleClient(); }

static void hal_on_event(void *, const device_event *event) {
  device_event_format(event, last_event, sizeof last_event);
  Serial.println(last_event);
}

static const device_hal hal = {nullptr, hal_ticks, hal_start_attempt, hal_collect, hal_serve, hal_on_event};

// ---- The setup page -----------------------------------------------------------------

static Preferences prefs;
static bool scheduler_ok;
static uint32_t restart_at;  // 0: no restart pending

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
  restart_at = millis() + 1000;  // after the answer has left; never delay() here
  if (restart_at == 0) restart_at = 1;
}

#if TICKRETRY_BACKEND_WASM3
// Replacing the module over the air: the upload lands in RAM (wasm3 parses it in place,
// so it must outlive the runtime) and is swapped in between two passes while nothing is
// held. A module that fails to load or has another ABI is refused and the embedded one
// comes back. The swap starts the scheduler afresh, as after a reboot.
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
  // Only with nothing held: a late answer for the old instance's handle could otherwise
  // match a handle of the new one.
  if (!incoming || device_loop_held(&uploads) > 0) {
    server.send(409, "text/plain", incoming ? "Uploads in flight; try again shortly." : "No module received.");
    return;
  }
  tickretry_close();
  if (tickretry_wasm3_open(incoming, incoming_size) == TICKRETRY_RESULT_OK) {
    free(active);
    active = incoming;
    server.send(200, "text/plain", "Module replaced.");
  } else {
    String why = tickretry_error();
    tickretry_close();
    free(incoming);
    server.send(422, "text/plain", "Module refused: " + why);
  }
  incoming = nullptr;
  incoming_size = 0;
  start_scheduler();
}
#endif

// ---- setup() and loop() ---------------------------------------------------------------

static uint32_t upload_seq;
static uint32_t next_upload_at;

static void start_scheduler() {
  // open is a no-op when a module is already open (the one handle_module just loaded).
  scheduler_ok = tickretry_open() == TICKRETRY_RESULT_OK;
  if (!scheduler_ok) {
    Serial.println(tickretry_error());
    return;
  }
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
           (unsigned long)++upload_seq, (unsigned long)millis());
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
  next_upload_at = millis();
}

void loop() {
  bool station = WiFi.getMode() == WIFI_STA;
  if (scheduler_ok && station && int32_t(millis() - next_upload_at) >= 0) {
    next_upload_at += UPLOAD_EVERY_MS;
    begin_upload();
  }
  if (scheduler_ok) {
    device_loop_pass(&uploads);  // serves the page too; no sleep: the loop just runs again
    if (tickretry_error()) {
      scheduler_ok = false;
      Serial.println(tickretry_error());
    }
  } else {
    server.handleClient();
  }
  if (restart_at && int32_t(millis() - restart_at) >= 0) ESP.restart();
}
