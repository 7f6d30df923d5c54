// SetupPage: the loop of RetriedGet with a tiny page beside it, served without blocking.
//
// The page asks and reads; it never calls the scheduler. "GET now" sets a request that
// the next pass's begin_due applies, and the page shows a snapshot the loop wrote (the
// last event line, the operations live, the GETs begun). ESP-IDF's esp_http_server serves
// it from a task of its own, with a receive timeout per connection, so a client that
// trickles its request holds that connection only, never the loop (Arduino's WebServer,
// served from loop(), would hold it for as long as the client trickles). The handlers
// run in the server's task: what they share with the loop goes under one mutex. Set
// WIFI_SSID, WIFI_PASS and URL; the page is at the board's address, printed once Wi-Fi
// is up.
#include <Arduino.h>
#include <HTTPClient.h>
#include <WiFi.h>
#include <esp_http_server.h>
#include <freertos/semphr.h>

#include <tickretry.h>
#include <tickretry_loop.h>
#include <tickretry_trace.h>

#define WIFI_SSID "your-network"
#define WIFI_PASS "your-password"
#define URL "http://example.com/"

// RetriedGet's policy: 5 attempts of 5 s, backoff 1 s doubling to 16 s, within a minute.
static const tickretry_policy GET_POLICY = {
    .max_attempts = 5,
    .attempt_timeout = 5000,
    .base_delay = 1000,
    .max_delay = 16000,
    .throttle_base_delay = 5000,
    .deadline = 60000,
    .flags = TICKRETRY_JITTER_FULL | TICKRETRY_POLICY_FLAG_IDEMPOTENT,
};

struct Attempt {
  int32_t handle, attempt;
};
struct Answer {
  int32_t handle, attempt;
  int status;  // an HTTP status, or HTTPClient's negative error code
};
static QueueHandle_t attempts;
static QueueHandle_t answers;
static tickretry_loop scheduler;
static bool running;  // the scheduler opened and has not failed
static httpd_handle_t server;

// What the page and the loop share, under `shared`: what the page may ask (set by a
// handler, applied and cleared by the next pass) and what it may read (written by the
// loop only).
static SemaphoreHandle_t shared;
static bool get_asked;
static struct {
  char last_event[96];
  uint32_t live, begun;
} snapshot = {"none yet", 0, 0};

static void get_task(void *) {
  Attempt a;
  for (;;) {
    if (xQueueReceive(attempts, &a, portMAX_DELAY) != pdTRUE) continue;
    Answer answer = {a.handle, a.attempt, HTTPC_ERROR_NOT_CONNECTED};
    HTTPClient http;
    if (WiFi.status() == WL_CONNECTED && http.begin(URL)) {
      http.setTimeout(4000);
      answer.status = http.GET();
      http.end();
    }
    xQueueSend(answers, &answer, portMAX_DELAY);
  }
}

static uint32_t hal_ticks(void *) { return millis(); }

static int hal_collect(void *, uint32_t, tickretry_loop_result *out) {
  Answer answer;
  if (xQueueReceive(answers, &answer, 0) != pdTRUE) return 0;
  out->handle = answer.handle;
  out->attempt = answer.attempt;
  out->outcome = answer.status > 0 ? tickretry_classify_http(uint32_t(answer.status), 0) : TICKRETRY_OUTCOME_AMBIGUOUS;
  out->retry_after = 0;
  return 1;
}

// The page's request, applied between passes' steps where a begin belongs.
static void hal_begin_due(void *, tickretry_loop *loop, uint32_t now) {
  xSemaphoreTake(shared, portMAX_DELAY);
  bool asked = get_asked;
  get_asked = false;
  xSemaphoreGive(shared);
  if (!asked || tickretry_loop_begin(loop, 0, now) < 0) return;
  xSemaphoreTake(shared, portMAX_DELAY);
  snapshot.begun++;
  xSemaphoreGive(shared);
}

static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t, uint32_t) {
  Attempt a = {handle, attempt};
  if (xQueueSend(attempts, &a, 0) == pdTRUE) return;
  Answer refused = {handle, attempt, HTTPC_ERROR_CONNECTION_REFUSED};
  xQueueSend(answers, &refused, 0);
}

static void hal_on_event(void *, const tickretry_loop_event *event) {
  char line[sizeof snapshot.last_event];
  tickretry_loop_event_format(event, line, sizeof line);
  Serial.println(line);
  xSemaphoreTake(shared, portMAX_DELAY);
  memcpy(snapshot.last_event, line, sizeof line);
  xSemaphoreGive(shared);
}

static const tickretry_loop_hal hal = {
    .ctx = nullptr,
    .ticks = hal_ticks,
    .collect = hal_collect,
    .sessions = nullptr,
    .dropped = nullptr,
    .link_up = nullptr,
    .begin_due = hal_begin_due,
    .persist = nullptr,
    .start_attempt = hal_start_attempt,
    .on_event = hal_on_event,
    .serve = nullptr,  // the server's own task serves the page
};

static esp_err_t handle_page(httpd_req_t *req) {
  char html[384];
  xSemaphoreTake(shared, portMAX_DELAY);
  snprintf(html, sizeof html,
           "<!doctype html><title>tickretry</title><p>GETs begun %lu, live %lu"
           "<p>last event: %s<form method=post action=/get><button>GET now</button></form>",
           (unsigned long)snapshot.begun, (unsigned long)snapshot.live, snapshot.last_event);
  xSemaphoreGive(shared);
  httpd_resp_set_type(req, "text/html");
  return httpd_resp_send(req, html, ssize_t(strlen(html)));
}

static esp_err_t handle_get(httpd_req_t *req) {
  xSemaphoreTake(shared, portMAX_DELAY);
  get_asked = true;
  xSemaphoreGive(shared);
  httpd_resp_set_status(req, "303 See Other");
  httpd_resp_set_hdr(req, "Location", "/");
  return httpd_resp_send(req, "", 0);
}

static void serve_page() {
  httpd_config_t config = HTTPD_DEFAULT_CONFIG();
  config.max_open_sockets = 3;     // a few clients at once; the oldest gives way to a new one
  config.lru_purge_enable = true;
  config.recv_wait_timeout = 5;    // s per receive: a silent client is dropped
  const httpd_uri_t page = {"/", HTTP_GET, handle_page, nullptr};
  const httpd_uri_t get = {"/get", HTTP_POST, handle_get, nullptr};
  if (httpd_start(&server, &config) != ESP_OK) {
    Serial.println("the page's server did not start");
    return;
  }
  httpd_register_uri_handler(server, &page);
  httpd_register_uri_handler(server, &get);
}

void setup() {
  Serial.begin(115200);
  WiFi.mode(WIFI_STA);
  WiFi.begin(WIFI_SSID, WIFI_PASS);
  attempts = xQueueCreate(1, sizeof(Attempt));
  answers = xQueueCreate(2, sizeof(Answer));
  shared = xSemaphoreCreateMutex();
  xTaskCreate(get_task, "get", 8192, nullptr, 1, nullptr);
  serve_page();  // after WiFi.mode(): the server needs the network stack
  if (tickretry_open() != TICKRETRY_RESULT_OK) {
    Serial.println(tickretry_error());
    return;
  }
  tickretry_init(esp_random(), esp_random());
  tickretry_set_policy(0, &GET_POLICY);
  tickretry_loop_init(&scheduler, &hal);
  running = true;
}

void loop() {
  static bool announced;
  if (!announced && WiFi.status() == WL_CONNECTED) {
    announced = true;
    Serial.println("page at http://" + WiFi.localIP().toString() + "/");
  }
  uint32_t due = 10;
  if (running) {
    due = tickretry_loop_pass(&scheduler);
    xSemaphoreTake(shared, portMAX_DELAY);
    snapshot.live = tickretry_loop_live(&scheduler);
    xSemaphoreGive(shared);
    if (tickretry_loop_fault(&scheduler) != 0) {
      Serial.println(tickretry_error());
      running = false;
    }
  }
  delay(tickretry_loop_sleep(due, 10));
}
