/* The board a firmware block of the docs (one that defines setup and loop, as README.md's
 * step 4 does) is linked with by test/docs/snippets.test.ts, so the block people copy is run,
 * not only compiled. Its functions are the ones that block declares: a clock that moves 50
 * ticks a pass from 256 ticks before the 32-bit wrap, a client whose first answer comes back
 * 500 ticks after its attempt deadline (a late answer) and every later one 100 ticks after
 * the request, storage that checks each write, and a log that checks each report.
 * main exits 1 with the broken promise unless the block keeps its comments' word:
 * the image is stored when tickretry_changes() moved and only then, the late answer is
 * reported and gets STALE_REPORT (not BAD_HANDLE: the loop released nothing still out),
 * and the upload succeeds. */
#include <stdio.h>
#include <stdlib.h>

#include "tickretry_loop.h"

void setup(void);
void loop(void);

#define PASSES 200
#define STEP 50u
#define LATE_BY 500u
#define ANSWER_AFTER 100u

static uint32_t now = 0xFFFFFF00u;

/* The requests sent and not yet answered, each with the tick its answer arrives. */
static struct {
  tickretry_loop_result answer;
  uint32_t at;
} inbox[TICKRETRY_LIMIT_OPERATIONS * 2];
#define NOT_REPORTED 1 /* no result code is positive */
static int inbox_count, requests, late_handle, late_attempt, late_result = NOT_REPORTED, succeeded;
static int stores;
static uint32_t stored_changes;

static void fail(const char *why) {
  fprintf(stderr, "fake board: %s\n", why);
  exit(1);
}

uint32_t millis(void) { return now; }

void send_request(int32_t handle, int32_t attempt, int32_t operation_id) {
  (void)operation_id;
  if (inbox_count == (int)(sizeof inbox / sizeof inbox[0])) fail("more requests out than a board keeps");
  int late = requests++ == 0;
  uint32_t at = late ? tickretry_attempt_deadline(handle) + LATE_BY : now + ANSWER_AFTER;
  if (late) late_handle = handle, late_attempt = attempt;
  inbox[inbox_count].answer = (tickretry_loop_result){handle, attempt, TICKRETRY_OUTCOME_SUCCESS, 0};
  inbox[inbox_count++].at = at;
}

int take_answer(uint32_t at, tickretry_loop_result *answer) {
  for (int i = 0; i < inbox_count; i++) {
    if ((int32_t)(at - inbox[i].at) < 0) continue; /* not arrived yet (wrap-safe) */
    *answer = inbox[i].answer;
    inbox[i] = inbox[--inbox_count];
    return 1;
  }
  return 0;
}

void store_image(const uint8_t *image, int32_t length) {
  (void)image;
  uint32_t changes = tickretry_changes();
  if (stores++ > 0 && changes == stored_changes) fail("stored an image although tickretry_changes() had not moved");
  if (length <= 0 || length > TICKRETRY_IMAGE_AREA_BYTES) fail("stored an image of an impossible length");
  stored_changes = changes;
}

void log_event(const tickretry_loop_event *event) {
  if (event->kind == TICKRETRY_LOOP_EVENT_REPORT && event->handle == late_handle &&
      event->attempt == late_attempt)
    late_result = event->result;
  if (event->kind == TICKRETRY_LOOP_EVENT_REPORT && event->result == TICKRETRY_ERROR_BAD_HANDLE)
    fail("an answer got BAD_HANDLE: its operation was released while the answer was out");
  if (event->kind == TICKRETRY_LOOP_EVENT_END && event->reason == TICKRETRY_END_REASON_SUCCEEDED) succeeded = 1;
}

int main(void) {
  setup();
  for (int pass = 0; pass < PASSES; pass++, now += STEP) {
    loop();
    if (tickretry_changes() != stored_changes) fail("tickretry_changes() moved and the pass stored nothing");
  }
  if (requests < 2) fail("no retry after the attempt that answered late");
  if (late_result == NOT_REPORTED) fail("the late answer was never reported");
  if (late_result != TICKRETRY_ERROR_STALE_REPORT) fail("the late answer did not get STALE_REPORT");
  if (!succeeded) fail("the upload never succeeded");
  if (inbox_count != 0) fail("answers left uncollected");
  printf("fake board: %d passes, %d requests, %d stores, the late answer got STALE_REPORT\n", PASSES, requests,
         stores);
  return 0;
}
