/* The readings and their uploads: the upload policy and the retry budget, when a reading
 * is due, the kept queue a reading waits in for a slot, each upload's body and key fixed at
 * begin (in the kept state), and what the page shows of each live upload (its reading, when
 * it began, its last answer). Keyed by handle, never by decoding one. */
#ifndef APP_READINGS_H
#define APP_READINGS_H
#include <stdint.h>

#include "app_hal.h"
#include "kept.h"
#include "status.h"
#include "tickretry_loop.h"
#ifdef __cplusplus
extern "C" {
#endif

#define APP_UPLOAD_POLICY 0

/* The upload policy (number APP_UPLOAD_POLICY) and the retry budget (readings.c). */
extern const tickretry_policy *const app_upload_policy;
extern const tickretry_budget *const app_retry_budget;

typedef struct app_tracked {
  int32_t handle;
  uint8_t used;
  uint32_t begun_at;
  int32_t reading; /* the upload's seq; -1 for one restored after a sleep or reset */
  char detail[APP_STATUS_DETAIL_BYTES];
} app_tracked;

/* Told of each reading taken (`dropped` 0, its seq) and each dropped (1, the drops so far),
 * in the order they happen: the host-run firmware's trace says them once the kept state
 * holds them, as the simulator's readings log does. NULL: nobody listens. */
typedef void (*app_readings_noted)(void *ctx, int dropped, uint32_t n);

typedef struct app_readings {
  const app_hal *hal;
  app_keeper *keeper; /* the queue, the bodies, their epochs and the reading count are kept state */
  app_status_book *book;
  tickretry_loop *loop;
  const char *device_id;
  uint32_t next_at; /* when the timer's next reading is due */
  app_readings_noted noted;
  void *noted_ctx;
  app_tracked tracked[TICKRETRY_LIMIT_OPERATIONS];
} app_readings;

void app_readings_init(app_readings *r, const app_hal *hal, app_keeper *keeper, app_status_book *book,
                       tickretry_loop *loop, const char *device_id);
/* The first reading falls due `in_ms` after `now`. */
void app_readings_due_in(app_readings *r, uint32_t now, uint32_t in_ms);
/* The HAL's begin_due: takes the timer's reading and one the page asked for into the
 * queue, and begins queued readings, oldest first, while a slot is free, this boot's epoch
 * is kept, the station is on and `may_begin` (over MQTT: the broker session is up). */
void app_readings_begin_due(app_readings *r, uint32_t now, int asked, int may_begin);
/* The upload body of a live handle (a scratch buffer for any other). */
char *app_readings_body(app_readings *r, int32_t handle);
/* One attempt of the HTTP build, as the board's client takes it. */
void app_readings_http_attempt(app_readings *r, int32_t handle, int32_t attempt, int32_t operation_id,
                               app_http_attempt *out);
/* What the page says of an attempt's answer: an HTTP status or transport error, or over
 * MQTT the publish's outcome. */
void app_readings_http_answer(app_readings *r, int32_t handle, int status);
void app_readings_mqtt_outcome(app_readings *r, int32_t handle, int32_t outcome);
/* The HTTP build's collect: the board's next answer, classified. */
int app_readings_http_collect(app_readings *r, tickretry_loop_result *out);
/* The loop's events the page shows (begin, start, answer, timeout, end). */
void app_readings_see(app_readings *r, const tickretry_loop_event *event);
/* The live operations as the status shows them, into `ops`; how many. */
uint32_t app_readings_status(const app_readings *r, status_operation *ops, uint32_t now);

#ifdef __cplusplus
}
#endif
#endif
