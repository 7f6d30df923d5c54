/* See readings.h. */
#include "readings.h"

#include <stdio.h>
#include <string.h>

#include "generated/app_config.h"
#include "tickretry.h"
#include "tickretry_ticks.h"

/* The values are boards/app/config.json's (generated/app_config.h), the simulator's too.
 * Idempotent because the server deduplicates on Idempotency-Key, so a timed-out or ambiguous
 * attempt may be retried. KICK: when the station gets its IP back (or the broker session
 * comes up), a waiting upload falls due within the spread instead of at the end of its
 * backoff. Over MQTT also a breaker: a broker gone away fails every publish at once, so after
 * a few failed attempts no upload starts until a probe gets through, and uploads wait instead
 * of spending their attempts. The budget is docs/ABI.md's 10% one: retries may add at most a
 * tenth to the load. */
static const tickretry_policy UPLOAD_POLICY = APP_CONFIG_UPLOAD_POLICY(UPLOAD_MQTT);
static const tickretry_budget RETRY_BUDGET = APP_CONFIG_RETRY_BUDGET;
/* Named as the page's playground writes them ("Copy as C"), so a policy pastes in as it is. */
const tickretry_policy *const app_upload_policy = &UPLOAD_POLICY;
const tickretry_budget *const app_retry_budget = &RETRY_BUDGET;

void app_readings_init(app_readings *r, const app_hal *hal, app_keeper *keeper, app_status_book *book,
                       tickretry_loop *loop, const char *device_id) {
  memset(r, 0, sizeof *r);
  r->hal = hal;
  r->keeper = keeper;
  r->book = book;
  r->loop = loop;
  r->device_id = device_id;
}

void app_readings_due_in(app_readings *r, uint32_t now, uint32_t in_ms) { r->next_at = tickretry_tick_after(now, in_ms); }

static uint32_t ticks(const app_readings *r) { return r->hal->ticks(r->hal->ctx); }

static void event(app_readings *r, const char *kind, int32_t operation_id, int32_t attempt, int32_t outcome) {
  app_status_event(r->book, ticks(r), r->hal->wall_ms(r->hal->ctx), kind, operation_id, attempt, outcome, 0);
}

static app_tracked *tracked_of(app_readings *r, int32_t handle, int add) {
  for (int i = 0; i < TICKRETRY_LIMIT_OPERATIONS; i++)
    if (r->tracked[i].used && r->tracked[i].handle == handle) return &r->tracked[i];
  if (!add) return NULL;
  for (int i = 0; i < TICKRETRY_LIMIT_OPERATIONS; i++) {
    app_tracked *t = &r->tracked[i];
    if (t->used) continue;
    *t = (app_tracked){handle, 1, ticks(r), -1, ""};
    return t;
  }
  return NULL;
}

char *app_readings_body(app_readings *r, int32_t handle) {
  static char none[APP_BODY_BYTES];
  int32_t slot = tickretry_slot(handle);
  return slot >= 0 ? r->keeper->kept->bodies[slot] : none;
}

/* The body and the key's epoch are fixed at begin: every attempt sends the same bytes. */
static void fix_body(app_readings *r, int32_t handle, uint32_t seq, uint32_t now) {
  app_kept *kept = r->keeper->kept;
  uint32_t epoch = r->keeper->boot_epoch;
  int32_t slot = tickretry_slot(handle);
  if (slot >= 0) kept->epochs[slot] = epoch;
#if UPLOAD_MQTT
  /* The operation id travels in the payload ("op", as the simulator's consumer reads it),
   * with the boot epoch beside it: an older image's ids come back under an older epoch. */
  snprintf(app_readings_body(r, handle), APP_BODY_BYTES,
           "{\"op\":%ld,\"reading\":%lu,\"epoch\":%lu,\"device\":\"%s\",\"uptime_ms\":%lu}",
           (long)tickretry_operation_id(handle), (unsigned long)seq, (unsigned long)epoch, r->device_id,
           (unsigned long)now);
#else
  snprintf(app_readings_body(r, handle), APP_BODY_BYTES, "{\"device\":\"%s\",\"seq\":%lu,\"uptime_ms\":%lu}",
           r->device_id, (unsigned long)seq, (unsigned long)now);
#endif
}

static void note(app_readings *r, int dropped, uint32_t n) {
  if (r->noted) r->noted(r->noted_ctx, dropped, n);
}

/* The oldest queued reading's seq, out of the queue. */
static uint32_t unqueue(app_readings *r) {
  app_reading_queue *q = &r->keeper->kept->readings;
  uint32_t seq = q->seqs[q->head];
  q->head = (q->head + 1) % APP_READINGS_QUEUE_LIMIT;
  q->count--;
  r->keeper->touched = 1;
  return seq;
}

static void drop_oldest(app_readings *r, const char *why) {
  uint32_t seq = unqueue(r);
  app_reading_queue *q = &r->keeper->kept->readings;
  app_say(r->hal, "reading %lu dropped (%s)\n", (unsigned long)seq, why);
  note(r, 1, ++q->dropped);
}

/* Queued readings begin, oldest first, while a slot is free (a full table keeps them queued),
 * as the simulator's beginQueued. Without this boot's epoch in NVS a key could repeat one an
 * older image used, and without the station no upload gets anywhere: they wait. */
static void begin_queued(app_readings *r, uint32_t now, int may_begin) {
  if (!may_begin || r->keeper->boot_epoch == 0 || !r->hal->station_on(r->hal->ctx)) return;
  while (r->keeper->kept->readings.count > 0) {
    int32_t handle = tickretry_loop_begin(r->loop, APP_UPLOAD_POLICY, now);
    if (handle == TICKRETRY_ERROR_TABLE_FULL) return;
    if (handle < 0) { /* the module refuses the policy: no queued reading can begin */
      app_say(r->hal, "upload not begun: %ld\n", (long)handle);
      drop_oldest(r, "the module refused its begin");
      return;
    }
    uint32_t seq = unqueue(r);
    app_tracked *t = tracked_of(r, handle, 1);
    if (t) t->reading = (int32_t)seq;
    event(r, "begin", tickretry_operation_id(handle), 0, 0);
    fix_body(r, handle, seq, now);
  }
}

/* A reading taken: numbered, and queued behind the ones waiting. A free slot takes the oldest
 * first, so only a full queue with every slot taken (or the gate closed) drops one. */
static void take(app_readings *r, uint32_t now, int may_begin) {
  app_kept *kept = r->keeper->kept;
  app_reading_queue *q = &kept->readings;
  begin_queued(r, now, may_begin);
  uint32_t seq = ++kept->upload_seq;
  r->keeper->touched = 1;
  note(r, 0, seq);
  if (q->count == APP_READINGS_QUEUE_LIMIT) drop_oldest(r, "the queue was full");
  q->seqs[(q->head + q->count) % APP_READINGS_QUEUE_LIMIT] = seq;
  q->count++;
}

/* On the period's grid: a pass a few ms late does not move the next reading, and a gap
 * longer than the period (a reset, a stall) takes one reading, not one per period missed. */
static int timer_due(app_readings *r, uint32_t now) {
  if (!tickretry_tick_reached(now, r->next_at)) return 0;
  uint32_t next = tickretry_tick_after(r->next_at, APP_READINGS_EVERY_MS);
  r->next_at = tickretry_tick_reached(now, next) ? tickretry_tick_after(now, APP_READINGS_EVERY_MS) : next;
  return 1;
}

void app_readings_begin_due(app_readings *r, uint32_t now, int asked, int may_begin) {
  if (timer_due(r, now)) take(r, now, may_begin);
  if (asked) take(r, now, may_begin);
  begin_queued(r, now, may_begin);
}

void app_readings_http_attempt(app_readings *r, int32_t handle, int32_t attempt, int32_t operation_id,
                               app_http_attempt *out) {
  int32_t slot = tickretry_slot(handle);
  *out = (app_http_attempt){handle, attempt, operation_id,
                            slot >= 0 ? r->keeper->kept->epochs[slot] : r->keeper->boot_epoch, {0}};
  snprintf(out->body, sizeof out->body, "%s", app_readings_body(r, handle));
}

void app_readings_http_answer(app_readings *r, int32_t handle, int status) {
  app_tracked *t = tracked_of(r, handle, 0);
  if (!t) return;
  if (status > 0) snprintf(t->detail, sizeof t->detail, "HTTP %d", status);
  else snprintf(t->detail, sizeof t->detail, "transport error %d", status);
}

/* A publish's PUBACK, no connection to send it on, or a connection lost before the
 * PUBACK (it may have reached the broker). */
void app_readings_mqtt_outcome(app_readings *r, int32_t handle, int32_t outcome) {
  app_tracked *t = tracked_of(r, handle, 0);
  if (!t) return;
  snprintf(t->detail, sizeof t->detail, "%s",
           outcome == TICKRETRY_OUTCOME_SUCCESS     ? "PUBACK"
           : outcome == TICKRETRY_OUTCOME_AMBIGUOUS ? "connection lost before the PUBACK"
                                                    : "not sent: no broker connection");
}

int app_readings_http_collect(app_readings *r, tickretry_loop_result *out) {
  app_http_answer answer;
  if (!r->hal->http_collect(r->hal->ctx, &answer)) return 0;
  int32_t outcome =
      answer.status > 0 ? tickretry_classify_http(answer.status, answer.has_retry_after) : answer.transport;
  app_readings_http_answer(r, answer.handle, answer.status);
  /* A status outside 100..599 is no HTTP answer the module can place: nothing to retry. */
  if (outcome < 0) outcome = TICKRETRY_OUTCOME_PERMANENT;
  *out = (tickretry_loop_result){answer.handle, answer.attempt, outcome, answer.retry_after_ms};
  return 1;
}

static void ended(app_readings *r, const tickretry_loop_event *e) {
  app_tracked *t = tracked_of(r, e->handle, 0);
  uint32_t now = ticks(r);
  app_status_ended_one(r->book, now, r->hal->wall_ms(r->hal->ctx), tickretry_operation_id(e->handle),
                       t ? t->reading : -1, e->attempt, e->reason, tickretry_last_outcome(e->handle),
                       t ? t->detail : "", t ? now - t->begun_at : 0);
  if (t) t->used = 0;
}

/* A session's up, drop and link-up show in its own row and on the serial log, not here. */
void app_readings_see(app_readings *r, const tickretry_loop_event *e) {
  if (e->kind == TICKRETRY_LOOP_EVENT_START) {
    tracked_of(r, e->handle, 1); /* an operation restored after a sleep or reset shows from here */
    event(r, "start", e->operation_id, e->attempt, 0);
  } else if (e->kind == TICKRETRY_LOOP_EVENT_REPORT) {
    event(r, "answer", tickretry_operation_id(e->handle), e->attempt, e->outcome);
  } else if (e->kind == TICKRETRY_LOOP_EVENT_TIMEOUT) {
    event(r, "timeout", tickretry_operation_id(e->handle), e->attempt, 0);
  } else if (e->kind == TICKRETRY_LOOP_EVENT_END) {
    ended(r, e);
  }
}

static status_ms in_ms(int present, uint32_t now, uint32_t at) {
  return (status_ms){(uint8_t)present, tickretry_ticks_until(now, at)};
}

uint32_t app_readings_status(const app_readings *r, status_operation *ops, uint32_t now) {
  uint32_t n = 0;
  for (int i = 0; i < TICKRETRY_LIMIT_OPERATIONS; i++) {
    const app_tracked *t = &r->tracked[i];
    if (!t->used) continue;
    int32_t h = t->handle, state = tickretry_state(h);
    if (state < 0 || state == TICKRETRY_STATE_DONE) continue;
    int has_deadline = (tickretry_op_flags(h) & TICKRETRY_OP_FLAG_HAS_DEADLINE) != 0;
    ops[n++] = (status_operation){tickretry_operation_id(h),
                                  tickretry_slot(h),
                                  t->reading,
                                  app_status_state_name(state),
                                  tickretry_attempt(h),
                                  (int32_t)UPLOAD_POLICY.max_attempts,
                                  in_ms(state == TICKRETRY_STATE_WAITING, now, tickretry_next_attempt_at(h)),
                                  in_ms(state == TICKRETRY_STATE_IN_FLIGHT, now, tickretry_attempt_deadline(h)),
                                  in_ms(has_deadline, now, tickretry_deadline(h)),
                                  app_status_outcome_name(tickretry_last_outcome(h)),
                                  t->detail};
  }
  return n;
}
