// RetriedGet: one HTTP GET, retried by tickretry from a loop() that never blocks.
//
// HTTPClient blocks, so the GET runs in a FreeRTOS task of its own and its answer comes
// back through a queue; the loop (tickretry_loop.h) starts each attempt the scheduler
// polls, reports each answer, and prints every event in the trace format. Nothing waits
// for a retry: the scheduler says when the next attempt is due. Set WIFI_SSID, WIFI_PASS
// and URL. Arduino builds the wasm3 backend (library.properties brings Wasm3 0.5.0).
#include <Arduino.h>
#include <HTTPClient.h>
#include <WiFi.h>

#include <tickretry.h>
#include <tickretry_loop.h>
#include <tickretry_trace.h>

#define WIFI_SSID "your-network"
#define WIFI_PASS "your-password"
#define URL "http://example.com/"

// 5 attempts of 5 s, backoff 1 s doubling to 16 s with full jitter, all within a minute.
// A GET changes nothing on the server, so an attempt that may have reached it is retried.
// Fields are named in declaration order (C++); a field not named is 0.
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

// The GET itself, off the loop: waiting here holds up only this task.
static void get_task(void *) {
  Attempt a;
  for (;;) {
    if (xQueueReceive(attempts, &a, portMAX_DELAY) != pdTRUE) continue;
    Answer answer = {a.handle, a.attempt, HTTPC_ERROR_NOT_CONNECTED};
    HTTPClient http;
    if (WiFi.status() == WL_CONNECTED && http.begin(URL)) {
      http.setTimeout(4000);  // before the policy's 5 s, so the answer normally counts
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
  // A transport error may have reached the server: AMBIGUOUS, which an idempotent
  // policy retries.
  out->outcome = answer.status > 0 ? tickretry_classify_http(uint32_t(answer.status), 0) : TICKRETRY_OUTCOME_AMBIGUOUS;
  out->retry_after = 0;
  return 1;
}

// The one GET, begun in the first pass.
static void hal_begin_due(void *, tickretry_loop *loop, uint32_t now) {
  static bool begun;
  if (!begun) begun = tickretry_loop_begin(loop, 0, now) >= 0;
}

static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t, uint32_t) {
  Attempt a = {handle, attempt};
  if (xQueueSend(attempts, &a, 0) == pdTRUE) return;
  // The task is still busy: nothing was sent, so say so now rather than time out later.
  Answer refused = {handle, attempt, HTTPC_ERROR_CONNECTION_REFUSED};
  xQueueSend(answers, &refused, 0);
}

static void hal_on_event(void *, const tickretry_loop_event *event) {
  char line[96];
  tickretry_loop_event_format(event, line, sizeof line);
  Serial.println(line);
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
    .serve = nullptr,
};

void setup() {
  Serial.begin(115200);
  WiFi.mode(WIFI_STA);
  WiFi.begin(WIFI_SSID, WIFI_PASS);  // returns at once; the first attempts may fail and retry
  // One attempt at a time plus one late answer beside it.
  attempts = xQueueCreate(1, sizeof(Attempt));
  answers = xQueueCreate(2, sizeof(Answer));
  xTaskCreate(get_task, "get", 8192, nullptr, 1, nullptr);
  if (tickretry_open() != TICKRETRY_RESULT_OK) {
    Serial.println(tickretry_error());
    return;
  }
  tickretry_init(esp_random(), esp_random());  // a seed of this device's own
  tickretry_set_policy(0, &GET_POLICY);
  tickretry_loop_init(&scheduler, &hal);
  running = true;
}

void loop() {
  if (!running) return;
  uint32_t due = tickretry_loop_pass(&scheduler);
  if (tickretry_loop_fault(&scheduler) != 0) {
    Serial.println(tickretry_error());  // the engine failed: where
    running = false;
  }
  // Until the scheduler has work, but never long: an answer may come back sooner.
  delay(tickretry_loop_sleep(due, 10));
}
