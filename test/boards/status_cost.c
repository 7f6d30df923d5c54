/* What one GET /status.json costs the sketch (boards/app/status.c), for
 * test/boards/status-cost.test.ts: a busy board's status, as the sketch's tables hold it
 * at their largest (EVENTS_KEPT events, RECENT_KEPT ended operations, its two sessions),
 * written for the page's first poll and for a poll in the steady state: the third, after
 * an upload's worth of events (a begin, a start, an answer and an end), with the loop and
 * the counters moved since the poll before, and the live operations and sessions only
 * counted on by the clock.
 *   status_cost json full|steady|retry|reboot LIVE
 *                                              the JSON of that poll with LIVE operations
 *   status_cost calls full|steady LIVE N       writes it N times more and prints how many
 *                                              writes in all, for callgrind
 *                                              (--toggle-collect=app_status_json)
 *   status_cost since VALUE                    what app_status_since reads of ?since=VALUE
 * retry: the steady poll, where one live operation also began an attempt (every row goes).
 * reboot: a page that polled before the board rebooted asks since a seq past the newest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

/* The sketch's table sizes (boards/esp32/src/main.cpp). */
#define EVENTS_KEPT 32
#define RECENT_KEPT 8
/* Events a poll every 500 ms sees in the steady state: an upload every 3 s brings a
 * begin, a start, an answer and an end, so at most one upload's worth. */
#define NEW_EVENTS 4

static status_operation ops[TICKRETRY_LIMIT_OPERATIONS];
static status_session sessions[2];
static status_memo memo;
static long earlier_writes; /* the polls before the one measured */
static status_ended recent[RECENT_KEPT];
static status_event events[EVENTS_KEPT];
static const char *const KINDS[] = {"begin", "start", "answer", "end"};

static void fill(app_status *s, uint32_t live) {
  const uint64_t wall = 1764590400000ull;
  for (uint32_t i = 0; i < live; i++)
    ops[i] = (status_operation){1908383735 + (int32_t)i, (int32_t)i, 4100 + (int32_t)i, "WAITING", 3, 10,
                                {1, 1200}, {0, 0}, {1, 52000}, "TRANSIENT", "HTTP 503"};
  /* Newest first, each ended at its end event (every fourth). */
  for (int i = 0; i < RECENT_KEPT; i++)
    recent[i] = (status_ended){1001 + EVENTS_KEPT - 1 - 4 * (uint32_t)i, 1908383700 + i, 4090 + i, "SUCCEEDED", 2,
                               "SUCCESS", "HTTP 200", 3120};
  for (uint32_t i = 0; i < EVENTS_KEPT; i++)
    events[i] = (status_event){1001 + i, 4294960000u + 750 * i, wall + 750 * i, KINDS[i % 4],
                               1908383735 + (int32_t)(i / 4), 1, i % 4 == 2 ? "SUCCESS" : "NONE",
                               i % 4 == 3 ? "SUCCEEDED" : "NONE"};
  sessions[0] = (status_session){"wifi", "up", 1908383001, 1, 0, 0, {1, 3600000}, {0, 0}, "NONE", "SUCCESS",
                                 "got IP 192.168.1.23"};
  sessions[1] = (status_session){"mqtt", "up", 1908383002, 2, 1, 1, {1, 1800000}, {0, 0}, "NONE", "SUCCESS",
                                 "connected"};
  *s = (app_status){0};
  s->name = "tickretry-a1b2c3";
  s->backend = "wasm2c";
  s->abi_version = TICKRETRY_ABI_VERSION;
  s->now = 4294960000u + 750u * EVENTS_KEPT; /* past the wrap */
  s->wall_ms = wall + 750 * EVENTS_KEPT;
  s->passes = 123456789;
  s->last_gap_ms = 1.25;
  s->max_gap_ms = 14.5;
  s->p99_gap_ms = 3;
  s->budget_on = 1;
  s->tokens_milli = 9500;
  for (int i = 0; i < TICKRETRY_COUNTER_COUNT; i++) s->counters[i] = 100000 + i;
  s->requests_started = 40000;
  s->store_where = "NVS";
  s->store_writes = 1200;
  s->store_operations_ended = 39000;
  s->store_writes_per_operation = (status_number){1, 0.031};
  s->store_bytes = 1032;
  s->store_image_bytes = 640;
  s->store_max_write_ms = 12.5;
  s->power_kind = "deep sleep";
  s->power_count = 12;
  s->power_elapsed_ms = 60000;
  s->operations = ops;
  s->operation_count = live;
  s->recent = recent;
  s->recent_count = RECENT_KEPT;
  s->events = events;
  s->event_count = EVENTS_KEPT;
  s->ssid = "home-network-2.4GHz";
  s->upstream_url = "https://***@readings.example.org/upload";
  s->password_set = 1;
  s->app_password_set = 1;
  s->sessions = sessions;
  s->session_count = 2;
}

/* 500 ms on: the tick, the loop, the sessions' up time and the live operations' waits
 * and deadlines (which the memo compares as the tick they point at: unchanged). */
static void half_second_on(app_status *s) {
  s->now += 500;
  s->wall_ms += 500;
  s->passes += 60;
  for (int i = 0; i < 2; i++) sessions[i].up_for.ms += 500;
  for (uint32_t i = 0; i < s->operation_count; i++) {
    ops[i].next_attempt_in.ms -= 500;
    ops[i].deadline_in.ms -= 500;
  }
}

/* The page's polls up to the one measured; what that one asks since. */
static uint32_t polls_before(app_status *s, const char *poll) {
  static char json[12 * 1024];
  uint32_t newest = events[EVENTS_KEPT - 1].seq;
  if (strcmp(poll, "reboot") == 0) return newest + 500;
  int retry = strcmp(poll, "retry") == 0;
  if (strcmp(poll, "steady") != 0 && !retry) return 0; /* full: the page's first poll */
  earlier_writes = 2;
  s->memo = &memo;
  s->event_count = EVENTS_KEPT - 2 * NEW_EVENTS; /* the first poll */
  app_status_json(s, json, sizeof json);
  s->events_since = events[s->event_count - 1].seq; /* the second, an upload later */
  s->event_count = EVENTS_KEPT - NEW_EVENTS;
  half_second_on(s);
  app_status_json(s, json, sizeof json);
  s->event_count = EVENTS_KEPT; /* the third, an upload later: it moved the counters */
  half_second_on(s);
  s->counters[TICKRETRY_COUNTER_BEGUN]++;
  if (retry && s->operation_count > 0) {
    ops[0].attempt++;
    ops[0].state = "IN_FLIGHT";
  }
  return newest - NEW_EVENTS;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "since") == 0) {
    printf("%lu\n", (unsigned long)app_status_since(argv[2]));
    return 0;
  }
  if (argc < 4) return 2;
  uint32_t live = (uint32_t)atoi(argv[3]);
  if (live > TICKRETRY_LIMIT_OPERATIONS) return 2;
  static char json[12 * 1024]; /* the sketch's buffer */
  app_status s;
  fill(&s, live);
  uint32_t since = polls_before(&s, argv[2]);
  char since_text[16];
  snprintf(since_text, sizeof since_text, "%lu", (unsigned long)since);
  s.events_since = app_status_since(since_text);
  if (strcmp(argv[1], "json") == 0) {
    if (app_status_json(&s, json, sizeof json) == 0) return 1;
    puts(json);
    return 0;
  }
  if (strcmp(argv[1], "calls") == 0 && argc == 5) {
    long n = atol(argv[4]);
    for (long i = 0; i < n; i++)
      if (app_status_json(&s, json, sizeof json) == 0) return 1;
    printf("%ld\n", n + earlier_writes);
    return 0;
  }
  return 2;
}
