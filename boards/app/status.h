/* The firmware's GET /status.json: the values a board gathers, written as JSON with the
 * keys of status_fields.h (generated from boards/page/status-fields.json, the list the
 * simulator follows too), so the page reads the same fields from both. Free of any
 * board: test/boards/status-fields.test.ts builds and runs it with gcc. */
#ifndef APP_STATUS_H
#define APP_STATUS_H
#include <stddef.h>
#include <stdint.h>
#include "generated/tickretry_abi.h"
#ifdef __cplusplus
extern "C" {
#endif

/* A time that may be absent (written as null). */
typedef struct status_ms {
  uint8_t present;
  int32_t ms;
} status_ms;

/* A figure that may be absent (written as null). */
typedef struct status_number {
  uint8_t present;
  double value;
} status_number;

typedef struct status_operation {
  int32_t operation_id;
  int32_t slot;
  int32_t reading; /* the reading it uploads; -1: not known (restored after a reset) */
  const char *state;
  int32_t attempt, max_attempts;
  status_ms next_attempt_in, attempt_timeout_in, deadline_in;
  const char *last_outcome;
  const char *detail;
} status_operation;

typedef struct status_ended {
  uint32_t seq; /* its end event's */
  int32_t operation_id;
  int32_t reading;
  const char *end_reason;
  int32_t attempts;
  const char *last_outcome;
  const char *detail;
  uint32_t took_ms;
} status_ended;

typedef struct status_event {
  uint32_t seq, t;
  uint64_t wall_ms; /* the RTC then: it runs on through reboots and sleeps, the tick does not */
  const char *kind; /* begin, start, answer, timeout, end, boot, sleep */
  int32_t operation_id, attempt;
  const char *outcome, *end_reason;
} status_event;

/* A connection the module supervises as a session (Wi-Fi, the MQTT broker). */
typedef struct status_session {
  const char *name;
  const char *state; /* connecting, up, backing off, breaker open, ended */
  int32_t operation_id;
  uint32_t attempts, drops, reconnects;
  status_ms up_for, next_try_in;
  const char *end_reason, *last_outcome, *detail;
} status_session;

/* The groups a poll leaves out when they have not changed since the page's last poll
 * (its ?since=SEQ); the tick, the ended operations after SEQ and the events after SEQ are
 * always written. */
enum {
  STATUS_GROUP_DEVICE,
  STATUS_GROUP_LOOP,
  STATUS_GROUP_BUDGET,
  STATUS_GROUP_COUNTERS,
  STATUS_GROUP_HOST,
  STATUS_GROUP_READINGS,
  STATUS_GROUP_STORE,
  STATUS_GROUP_POWER,
  STATUS_GROUP_OPERATIONS,
  STATUS_GROUP_SETTINGS,
  STATUS_GROUP_SECURITY,
  STATUS_GROUP_SESSIONS,
  STATUS_GROUP_SIMULATED, /* faults, upstream, broker, consumer: fixed on a board */
  STATUS_GROUPS
};

/* What the writer last wrote of each group, kept by the caller from poll to poll (one for
 * every client: it holds no client's state): the group's hash, and 1 + the newest event
 * seq when it last changed (0: not yet written). A poll since SEQ gets a group only when
 * it changed at SEQ or after: the page saw the group as it was at SEQ. */
typedef struct status_memo {
  uint32_t hash[STATUS_GROUPS];
  uint32_t changed_at[STATUS_GROUPS];
} status_memo;

typedef struct app_status {
  const char *name, *backend;
  int32_t abi_version;
  uint32_t now, wraps;
  uint64_t wall_ms; /* the RTC now, ms (the clock the page places events on) */
  uint32_t passes, p99_gap_ms, stalls;
  double last_gap_ms, max_gap_ms, steady_max_gap_ms, max_stalled_gap_ms;
  uint8_t budget_on;
  int32_t tokens_milli;
  int32_t counters[TICKRETRY_COUNTER_COUNT];
  uint32_t requests_started, requests_abandoned;
  uint32_t readings_queued, readings_queue_limit, readings_dropped;
  /* Where the state is kept, its writes and their cost (store group). */
  const char *store_where;
  uint32_t store_writes, store_write_failures, store_operations_ended, store_bytes, store_image_bytes;
  status_number store_writes_per_operation;
  status_number store_flash_life_years; /* the simulator's NVS model's figure; absent on a board */
  double store_max_write_ms;
  /* The last boot (power group). */
  const char *power_kind;
  uint32_t power_count, power_elapsed_ms, power_restored_operations, power_restored_queued;
  status_ms power_asleep_for;
  const status_operation *operations;
  uint32_t operation_count;
  const status_ended *recent;
  uint32_t recent_count;
  const status_event *events; /* oldest first */
  uint32_t event_count;
  uint32_t events_since; /* the page's last seq (app_status_since); 0: everything */
  status_memo *memo;     /* NULL: every group every time */
  const char *ssid, *upstream_url; /* the URL without credentials */
  uint8_t password_set, app_password_set, module_upload;
  /* The broker settings, the password only as set or not. */
  const char *broker_url, *broker_client_id, *broker_username, *broker_topic;
  uint8_t broker_password_set;
  const status_session *sessions;
  uint32_t session_count;
  /* A board has no simulated upstream, broker or consumer: faults.scenarios is [],
   * faults.scenario "", and upstream, broker and consumer null. */
} app_status;

/* The page's ?since=SEQ: its value when it is 1 to 10 decimal digits below 2^32, else 0
 * (every event), as the simulator reads it. */
uint32_t app_status_since(const char *value);

/* Writes the JSON into out (NUL-terminated): its length, or 0 when it did not fit. With
 * events_since: the events and ended operations after it, and the groups that changed
 * since (the memo's); everything when events_since is past the newest event (a page that
 * polled before this boot, whose count started again). */
size_t app_status_json(const app_status *s, char *out, size_t size);

/* What the status shows beyond the module's own queries and the rooms' counters: the last
 * ended operations, the last events (for the live timeline) and the loop's gaps. */
#define APP_STATUS_RECENT_KEPT 8
#define APP_STATUS_EVENTS_KEPT 32
#define APP_STATUS_DETAIL_BYTES 40
#define APP_STATUS_GAP_BUCKETS 100 /* 1 ms each; the last holds 99 ms and more */
typedef struct app_status_ended {
  status_ended view;
  char detail[APP_STATUS_DETAIL_BYTES];
} app_status_ended;
typedef struct app_status_book {
  app_status_ended recent[APP_STATUS_RECENT_KEPT];
  uint32_t recent_count;
  status_event events[APP_STATUS_EVENTS_KEPT]; /* a ring; event_seq counts every event ever */
  uint32_t event_seq;
  uint32_t passes, last_pass_at, last_gap_ms, max_gap_ms;
  uint32_t first_pass_at, steady_max_gap_ms; /* steady: the gaps after APP_PAGE_LOOP_STARTUP_MS */
  uint16_t gap_histogram[APP_STATUS_GAP_BUCKETS];
  uint32_t operations_ended;
  /* what the history needs and the last two groups show */
  status_ended ended_view[APP_STATUS_RECENT_KEPT];
  status_event events_view[APP_STATUS_EVENTS_KEPT];
} app_status_book;

/* The status's names of a state, an outcome, an end reason (status_fields.h), or "?". */
const char *app_status_state_name(int32_t state);
const char *app_status_outcome_name(int32_t outcome);
const char *app_status_end_reason_name(int32_t reason);

void app_status_event(app_status_book *b, uint32_t t, uint64_t wall_ms, const char *kind, int32_t operation_id,
                      int32_t attempt, int32_t outcome, int32_t reason);
/* This boot on the page's timeline, after the deep sleep it woke from, if any: that
 * sleep's own event was lost with the RAM that held it, so it is placed back by how long
 * the sleep lasted. */
void app_status_boot(app_status_book *b, uint32_t t, uint64_t wall_ms, int woke, uint32_t slept_ms);
/* An operation ended: its end event and its row among the recent ones. */
void app_status_ended_one(app_status_book *b, uint32_t t, uint64_t wall_ms, int32_t operation_id, int32_t reading,
                          int32_t attempts, int32_t reason, int32_t last_outcome, const char *detail, uint32_t took_ms);
/* A loop pass began at `now`. */
void app_status_pass(app_status_book *b, uint32_t now);
/* "Reset loop maxima" on the page. */
void app_status_reset_gaps(app_status_book *b);
/* The loop group, the last ended operations (newest first) and the last events (oldest
 * first) into `s`. */
void app_status_history(app_status_book *b, app_status *s);

#ifdef __cplusplus
}
#endif
#endif
