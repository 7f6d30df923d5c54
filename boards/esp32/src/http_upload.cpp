// See http_upload.h.
#include "http_upload.h"

#if !UPLOAD_MQTT
#include <Arduino.h>
#include <HTTPClient.h>
#include <WiFi.h>

#include "tickretry.h"

// The HTTP client gives up before the module's attempt timeout, so that an answer
// normally arrives in time to count (a later one is reported and counted stale).
#define HTTP_CONNECT_TIMEOUT_MS 4000
#define HTTP_READ_TIMEOUT_MS 7000
// HTTPClient over plain TCP peaks near 5 KiB of stack; https would need about 12 KiB.
#define UPLOAD_TASK_STACK_BYTES 8192

static const char *upload_url;
static QueueHandle_t requests;
static QueueHandle_t answers;

static void read_retry_after(HTTPClient &http, app_http_answer &answer) {
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

static app_http_answer answer_of(const app_http_attempt &request, int status) {
  return {request.handle, request.attempt, status, transport_outcome(status), false, 0};
}

static void upload_task(void *) {
  static const char *kept_headers[] = {"Retry-After"};  // HTTPClient takes a non-const array
  app_http_attempt request;
  for (;;) {
    if (xQueueReceive(requests, &request, portMAX_DELAY) != pdTRUE) continue;
    app_http_answer answer = answer_of(request, HTTPC_ERROR_NOT_CONNECTED);
    HTTPClient http;
    if (WiFi.status() == WL_CONNECTED && http.begin(upload_url)) {
      http.setConnectTimeout(HTTP_CONNECT_TIMEOUT_MS);
      http.setTimeout(HTTP_READ_TIMEOUT_MS);
      http.collectHeaders(kept_headers, 1);
      http.addHeader("Content-Type", "application/json");
      // "<epoch>-<operation id>": an older image that comes back after a failed NVS write
      // repeats operation ids, but never under this boot's epoch.
      http.addHeader("Idempotency-Key", String((unsigned long)request.epoch) + "-" + String((long)request.operation_id));
      answer = answer_of(request, http.POST(reinterpret_cast<uint8_t *>(request.body), strlen(request.body)));
      read_retry_after(http, answer);
      http.end();
    }
    // Waiting here holds up only this task, never the main loop.
    xQueueSend(answers, &answer, portMAX_DELAY);
  }
}

void http_upload_begin(const char *url) {
  upload_url = url;
  requests = xQueueCreate(TICKRETRY_LIMIT_OPERATIONS, sizeof(app_http_attempt));
  answers = xQueueCreate(2 * TICKRETRY_LIMIT_OPERATIONS, sizeof(app_http_answer));
  xTaskCreate(upload_task, "upload", UPLOAD_TASK_STACK_BYTES, nullptr, 1, nullptr);
}

void http_upload_start(void *, const app_http_attempt *attempt) {
  if (xQueueSend(requests, attempt, 0) == pdTRUE) return;
  // The task is backed up: nothing was sent, so say so now rather than time out later.
  app_http_answer refused = answer_of(*attempt, HTTPC_ERROR_CONNECTION_REFUSED);
  xQueueSend(answers, &refused, 0);
}

int http_upload_collect(void *, app_http_answer *out) { return xQueueReceive(answers, out, 0) == pdTRUE; }
#endif
