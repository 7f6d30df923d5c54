// SetupPage: the loop of RetriedGet with a tiny page beside it, served without blocking.
//
// The page asks and reads; it never calls the scheduler. "GET now" sets a request that
// the next pass's begin_due applies, and the page shows a snapshot the loop wrote (the
// last event line, the operations live, the GETs begun). loop() serves the page
// after the pass, one client turn at a time, so a slow client costs the loop one turn,
// never a retry's timing. Set WIFI_SSID, WIFI_PASS and URL; the page is at the board's
// address, printed once Wi-Fi is up.
#include <Arduino.h>
#include <HTTPClient.h>
#include <WebServer.h>
#include <WiFi.h>

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
static WebServer server(80);

// What the page may ask: set by a handler, applied and cleared by the next pass.
static bool get_asked;
// What the page may read: written by the loop only.
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
  if (!get_asked) return;
  get_asked = false;
  if (tickretry_loop_begin(loop, 0, now) >= 0) snapshot.begun++;
}

static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t, uint32_t) {
  Attempt a = {handle, attempt};
  if (xQueueSend(attempts, &a, 0) == pdTRUE) return;
  Answer refused = {handle, attempt, HTTPC_ERROR_CONNECTION_REFUSED};
  xQueueSend(answers, &refused, 0);
}

static void hal_on_event(void *, const tickretry_loop_event *event) {
  tickretry_loop_event_format(event, snapshot.last_event, sizeof snapshot.last_event);
  Serial.println(snapshot.last_event);
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
    .serve = nullptr,  // loop() serves after the pass
};

static void handle_page() {
  char html[384];
  snprintf(html, sizeof html,
           "<!doctype html><title>tickretry</title><p>GETs begun %lu, live %lu"
           "<p>last event: %s<form method=post action=/get><button>GET now</button></form>",
           (unsigned long)snapshot.begun, (unsigned long)snapshot.live, snapshot.last_event);
  server.send(200, "text/html", html);
}

static void handle_get() {
  get_asked = true;
  server.sendHeader("Location", "/");
  server.send(303);
}

void setup() {
  Serial.begin(115200);
  WiFi.mode(WIFI_STA);
  WiFi.begin(WIFI_SSID, WIFI_PASS);
  attempts = xQueueCreate(1, sizeof(Attempt));
  answers = xQueueCreate(2, sizeof(Answer));
  xTaskCreate(get_task, "get", 8192, nullptr, 1, nullptr);
  server.on("/", HTTP_GET, handle_page);
  server.on("/get", HTTP_POST, handle_get);
  server.begin();
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
    snapshot.live = tickretry_loop_live(&scheduler);
    if (tickretry_loop_fault(&scheduler) != 0) {
      Serial.println(tickretry_error());
      running = false;
    }
  }
  server.handleClient();
  delay(tickretry_loop_sleep(due, 10));
}
