/* See app_status.h. A small appender: it stops writing at the end of the buffer and
 * the caller learns so from the 0 returned. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "generated/app_config.h"
#include "generated/status_fields.h"

typedef struct out {
  char *p;
  size_t size, len;
  int full;
} out;

static void put(out *o, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(o->p + o->len, o->len < o->size ? o->size - o->len : 0, format, args);
  va_end(args);
  if (n < 0 || o->len + (size_t)n >= o->size) o->full = 1;
  else o->len += (size_t)n;
}

/* One byte, without vsnprintf: a string's bytes are most of what a status writes. */
static void put_byte(out *o, char c) {
  if (o->len + 1 >= o->size) {
    o->full = 1;
    return;
  }
  o->p[o->len++] = c;
  o->p[o->len] = 0;
}

/* A JSON string: quotes, backslashes and control characters escaped; other bytes as they are (UTF-8). */
static void str(out *o, const char *s) {
  put_byte(o, '"');
  for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
    if (*c == '"' || *c == '\\') put(o, "\\%c", *c);
    else if (*c < 0x20) put(o, "\\u%04x", *c);
    else put_byte(o, (char)*c);
  }
  put_byte(o, '"');
}

static void ms_or_null(out *o, status_ms v) {
  if (v.present) put(o, "%ld", (long)v.ms);
  else put(o, "null");
}

static void number_or_null(out *o, status_number v) {
  if (v.present) put(o, "%.3f", v.value);
  else put(o, "null");
}

#define BOOL(b) ((b) ? "true" : "false")

static void put_sessions(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_SESSIONS "[");
  for (uint32_t i = 0; i < s->session_count; i++) {
    const status_session *v = &s->sessions[i];
    put(o, "%s{" STATUS_KEY_SESSIONS_NAME, i ? "," : "");
    str(o, v->name);
    put(o, "," STATUS_KEY_SESSIONS_STATE);
    str(o, v->state);
    put(o,
        "," STATUS_KEY_SESSIONS_OPERATION_ID "%ld," STATUS_KEY_SESSIONS_ATTEMPTS "%lu," STATUS_KEY_SESSIONS_DROPS
        "%lu," STATUS_KEY_SESSIONS_RECONNECTS "%lu," STATUS_KEY_SESSIONS_UP_FOR_MS,
        (long)v->operation_id, (unsigned long)v->attempts, (unsigned long)v->drops, (unsigned long)v->reconnects);
    ms_or_null(o, v->up_for);
    put(o, "," STATUS_KEY_SESSIONS_NEXT_TRY_IN_MS);
    ms_or_null(o, v->next_try_in);
    put(o, "," STATUS_KEY_SESSIONS_END_REASON);
    str(o, v->end_reason);
    put(o, "," STATUS_KEY_SESSIONS_LAST_OUTCOME);
    str(o, v->last_outcome);
    put(o, "," STATUS_KEY_SESSIONS_DETAIL);
    str(o, v->detail);
    put(o, "}");
  }
  put(o, "]");
}

/* The tick group, first: every answer has it. */
static void put_tick(out *o, const app_status *s) {
  put(o, STATUS_KEY_TICK "{" STATUS_KEY_TICK_NOW "%lu," STATUS_KEY_TICK_WRAPS "%lu," STATUS_KEY_TICK_WALL_MS "%llu}",
      (unsigned long)s->now, (unsigned long)s->wraps, (unsigned long long)s->wall_ms);
}

/* Each group below writes itself with its leading comma. */
static void put_device(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_DEVICE "{" STATUS_KEY_DEVICE_NAME);
  str(o, s->name);
  put(o, "," STATUS_KEY_DEVICE_BACKEND);
  str(o, s->backend);
  put(o, "," STATUS_KEY_DEVICE_ABI_VERSION "%ld}", (long)s->abi_version);
}

static void put_loop(out *o, const app_status *s) {
  put(o,
      "," STATUS_KEY_LOOP "{" STATUS_KEY_LOOP_PASSES "%lu," STATUS_KEY_LOOP_LAST_GAP_MS "%.2f," STATUS_KEY_LOOP_MAX_GAP_MS
      "%.2f," STATUS_KEY_LOOP_STEADY_MAX_GAP_MS "%.2f," STATUS_KEY_LOOP_P99_GAP_MS "%lu," STATUS_KEY_LOOP_MAX_STALLED_GAP_MS "%.2f," STATUS_KEY_LOOP_STALLS "%lu}",
      (unsigned long)s->passes, s->last_gap_ms, s->max_gap_ms, s->steady_max_gap_ms, (unsigned long)s->p99_gap_ms, s->max_stalled_gap_ms,
      (unsigned long)s->stalls);
}

static void put_budget(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_BUDGET "{" STATUS_KEY_BUDGET_ON "%s," STATUS_KEY_BUDGET_TOKENS_MILLI "%ld}",
      BOOL(s->budget_on), (long)s->tokens_milli);
}

static void put_counters(out *o, const app_status *s) {
  static const char *const counter_names[] = STATUS_COUNTER_NAMES;
  put(o, "," STATUS_KEY_COUNTERS "{");
  for (int i = 0; i < TICKRETRY_COUNTER_COUNT; i++)
    put(o, "%s\"%s\":%ld", i ? "," : "", counter_names[i], (long)s->counters[i]);
  put(o, "}");
}

static void put_host(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_HOST "{" STATUS_KEY_HOST_REQUESTS_STARTED "%lu," STATUS_KEY_HOST_REQUESTS_ABANDONED "%lu}",
      (unsigned long)s->requests_started, (unsigned long)s->requests_abandoned);
}

static void put_readings(out *o, const app_status *s) {
  put(o,
      "," STATUS_KEY_READINGS "{" STATUS_KEY_READINGS_QUEUED "%lu," STATUS_KEY_READINGS_QUEUE_LIMIT
      "%lu," STATUS_KEY_READINGS_DROPPED "%lu," STATUS_KEY_READINGS_EVERY_MS "%lu," STATUS_KEY_READINGS_FIRMWARE_EVERY_MS
      "%lu}",
      (unsigned long)s->readings_queued, (unsigned long)s->readings_queue_limit, (unsigned long)s->readings_dropped,
      (unsigned long)APP_READINGS_EVERY_MS, (unsigned long)APP_READINGS_EVERY_MS);
}

static void put_store(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_STORE "{" STATUS_KEY_STORE_WHERE);
  str(o, s->store_where);
  put(o, "," STATUS_KEY_STORE_WRITES "%lu," STATUS_KEY_STORE_WRITE_FAILURES "%lu," STATUS_KEY_STORE_OPERATIONS_ENDED
      "%lu," STATUS_KEY_STORE_WRITES_PER_OPERATION,
      (unsigned long)s->store_writes, (unsigned long)s->store_write_failures, (unsigned long)s->store_operations_ended);
  number_or_null(o, s->store_writes_per_operation);
  put(o, "," STATUS_KEY_STORE_FLASH_LIFE_YEARS);
  number_or_null(o, s->store_flash_life_years);
  put(o, "," STATUS_KEY_STORE_BYTES "%lu," STATUS_KEY_STORE_IMAGE_BYTES "%lu," STATUS_KEY_STORE_MAX_WRITE_MS "%.2f}",
      (unsigned long)s->store_bytes, (unsigned long)s->store_image_bytes, s->store_max_write_ms);
}

static void put_power(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_POWER "{" STATUS_KEY_POWER_KIND);
  str(o, s->power_kind);
  put(o,
      "," STATUS_KEY_POWER_COUNT "%lu," STATUS_KEY_POWER_ELAPSED_MS "%lu," STATUS_KEY_POWER_RESTORED_OPERATIONS
      "%lu," STATUS_KEY_POWER_RESTORED_QUEUED "%lu," STATUS_KEY_POWER_ASLEEP_FOR_MS,
      (unsigned long)s->power_count, (unsigned long)s->power_elapsed_ms, (unsigned long)s->power_restored_operations,
      (unsigned long)s->power_restored_queued);
  ms_or_null(o, s->power_asleep_for);
  put(o, "}");
}

static void put_operations(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_OPERATIONS "[");
  for (uint32_t i = 0; i < s->operation_count; i++) {
    const status_operation *op = &s->operations[i];
    put(o,
        "%s{" STATUS_KEY_OPERATIONS_OPERATION_ID "%ld," STATUS_KEY_OPERATIONS_SLOT "%ld," STATUS_KEY_OPERATIONS_READING
        "%ld," STATUS_KEY_OPERATIONS_STATE,
        i ? "," : "", (long)op->operation_id, (long)op->slot, (long)op->reading);
    str(o, op->state);
    put(o, "," STATUS_KEY_OPERATIONS_ATTEMPT "%ld," STATUS_KEY_OPERATIONS_MAX_ATTEMPTS "%ld,"
            STATUS_KEY_OPERATIONS_NEXT_ATTEMPT_IN_MS,
        (long)op->attempt, (long)op->max_attempts);
    ms_or_null(o, op->next_attempt_in);
    put(o, "," STATUS_KEY_OPERATIONS_ATTEMPT_TIMEOUT_IN_MS);
    ms_or_null(o, op->attempt_timeout_in);
    put(o, "," STATUS_KEY_OPERATIONS_DEADLINE_IN_MS);
    ms_or_null(o, op->deadline_in);
    put(o, "," STATUS_KEY_OPERATIONS_LAST_OUTCOME);
    str(o, op->last_outcome);
    put(o, "," STATUS_KEY_OPERATIONS_DETAIL);
    str(o, op->detail);
    put(o, "}");
  }
  put(o, "]");
}

/* The events the page has not seen (after `after`). */
static void put_events(out *o, const app_status *s, uint32_t after) {
  put(o, "," STATUS_KEY_EVENTS "[");
  const char *comma = "";
  for (uint32_t i = 0; i < s->event_count; i++) {
    const status_event *e = &s->events[i];
    if (e->seq <= after) continue;
    put(o, "%s{" STATUS_KEY_EVENTS_SEQ "%lu," STATUS_KEY_EVENTS_T "%lu," STATUS_KEY_EVENTS_WALL_MS "%llu,"
           STATUS_KEY_EVENTS_KIND, comma, (unsigned long)e->seq, (unsigned long)e->t, (unsigned long long)e->wall_ms);
    comma = ",";
    str(o, e->kind);
    put(o, "," STATUS_KEY_EVENTS_OPERATION_ID "%ld," STATUS_KEY_EVENTS_ATTEMPT "%ld," STATUS_KEY_EVENTS_OUTCOME,
        (long)e->operation_id, (long)e->attempt);
    str(o, e->outcome);
    put(o, "," STATUS_KEY_EVENTS_END_REASON);
    str(o, e->end_reason);
    put(o, "}");
  }
  put(o, "]");
}

/* The ended operations the page has not seen (those whose end is after `after`). */
static void put_recent(out *o, const app_status *s, uint32_t after) {
  put(o, "," STATUS_KEY_RECENT "[");
  const char *comma = "";
  for (uint32_t i = 0; i < s->recent_count; i++) {
    const status_ended *e = &s->recent[i];
    if (e->seq <= after) continue;
    put(o, "%s{" STATUS_KEY_RECENT_SEQ "%lu," STATUS_KEY_RECENT_OPERATION_ID "%ld," STATUS_KEY_RECENT_READING
           "%ld," STATUS_KEY_RECENT_END_REASON,
        comma, (unsigned long)e->seq, (long)e->operation_id, (long)e->reading);
    comma = ",";
    str(o, e->end_reason);
    put(o, "," STATUS_KEY_RECENT_ATTEMPTS "%ld," STATUS_KEY_RECENT_LAST_OUTCOME, (long)e->attempts);
    str(o, e->last_outcome);
    put(o, "," STATUS_KEY_RECENT_DETAIL);
    str(o, e->detail);
    put(o, "," STATUS_KEY_RECENT_TOOK_MS "%lu}", (unsigned long)e->took_ms);
  }
  put(o, "]");
}

static void put_settings(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_SETTINGS "{" STATUS_KEY_SETTINGS_SSID);
  str(o, s->ssid);
  put(o, "," STATUS_KEY_SETTINGS_PASSWORD_SET "%s," STATUS_KEY_SETTINGS_UPSTREAM_URL, BOOL(s->password_set));
  str(o, s->upstream_url);
  put(o, "," STATUS_KEY_SETTINGS_BROKER_URL);
  str(o, s->broker_url);
  put(o, "," STATUS_KEY_SETTINGS_BROKER_CLIENT_ID);
  str(o, s->broker_client_id);
  put(o, "," STATUS_KEY_SETTINGS_BROKER_USERNAME);
  str(o, s->broker_username);
  put(o, "," STATUS_KEY_SETTINGS_BROKER_PASSWORD_SET "%s," STATUS_KEY_SETTINGS_BROKER_TOPIC,
      BOOL(s->broker_password_set));
  str(o, s->broker_topic);
  put(o, "}");
}

static void put_security(out *o, const app_status *s) {
  put(o, "," STATUS_KEY_SECURITY "{" STATUS_KEY_SECURITY_DEVICE_PASSWORD_SET "%s," STATUS_KEY_SECURITY_MODULE_UPLOAD
          "%s}",
      BOOL(s->app_password_set), BOOL(s->module_upload));
}

/* The simulator's groups: a board has no simulated upstream, broker or consumer. */
static void put_simulated(out *o, const app_status *s) {
  (void)s;
  put(o, "," STATUS_KEY_FAULTS "{" STATUS_KEY_FAULTS_SCENARIOS "[]," STATUS_KEY_FAULTS_SCENARIO "\"\"}");
  put(o, "," STATUS_KEY_UPSTREAM "null," STATUS_KEY_BROKER "null," STATUS_KEY_CONSUMER "null");
  /* The Policy view's starting point: the simulator's; a board's page starts from the form's. */
  put(o, "," STATUS_KEY_POLICY "null");
}

uint32_t app_status_since(const char *value) {
  uint64_t n = 0;
  size_t digits = 0;
  for (const char *c = value ? value : ""; *c; c++, digits++) {
    if (*c < '0' || *c > '9' || digits == 10) return 0;
    n = n * 10 + (uint64_t)(*c - '0');
  }
  return n > UINT32_MAX ? 0 : (uint32_t)n;
}

/* FNV-1a: what the memo compares, over a group's JSON or its pinned fields. */
static uint32_t fnv1a(uint32_t h, const void *bytes, size_t n) {
  const uint8_t *p = (const uint8_t *)bytes;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}
#define FNV_START 2166136261u
#define FNV_FIELD(h, v) fnv1a(h, &(v), sizeof(v))

static uint32_t fnv_str(uint32_t h, const char *s) {
  s = s ? s : "";
  return fnv1a(h, s, strlen(s) + 1);
}

/* A countdown (sign 1) or an up time (sign -1) as the tick it points at, which only a
 * change moves: the page counts it on by the tick while the group is left out. */
static uint32_t fnv_pinned(uint32_t h, uint32_t now, status_ms v, int sign) {
  uint32_t at = v.present ? now + (uint32_t)(sign * v.ms) : 0;
  h = FNV_FIELD(h, v.present);
  return FNV_FIELD(h, at);
}

static uint32_t operations_hash(const app_status *s) {
  uint32_t h = FNV_FIELD(FNV_START, s->operation_count);
  for (uint32_t i = 0; i < s->operation_count; i++) {
    const status_operation *op = &s->operations[i];
    h = FNV_FIELD(h, op->operation_id);
    h = FNV_FIELD(h, op->slot);
    h = FNV_FIELD(h, op->reading);
    h = FNV_FIELD(h, op->attempt);
    h = FNV_FIELD(h, op->max_attempts);
    h = fnv_str(fnv_str(fnv_str(h, op->state), op->last_outcome), op->detail);
    h = fnv_pinned(h, s->now, op->next_attempt_in, 1);
    h = fnv_pinned(h, s->now, op->attempt_timeout_in, 1);
    h = fnv_pinned(h, s->now, op->deadline_in, 1);
  }
  return h;
}

static uint32_t sessions_hash(const app_status *s) {
  uint32_t h = FNV_FIELD(FNV_START, s->session_count);
  for (uint32_t i = 0; i < s->session_count; i++) {
    const status_session *v = &s->sessions[i];
    h = fnv_str(fnv_str(h, v->name), v->state);
    h = FNV_FIELD(h, v->operation_id);
    h = FNV_FIELD(h, v->attempts);
    h = FNV_FIELD(h, v->drops);
    h = FNV_FIELD(h, v->reconnects);
    h = fnv_str(fnv_str(fnv_str(h, v->end_reason), v->last_outcome), v->detail);
    h = fnv_pinned(h, s->now, v->up_for, -1);
    h = fnv_pinned(h, s->now, v->next_try_in, 1);
  }
  return h;
}

typedef void (*group_writer)(out *, const app_status *);
/* In STATUS_GROUP order. */
static const group_writer GROUPS[STATUS_GROUPS] = {put_device, put_loop,       put_budget,   put_counters,
                                                  put_host,   put_readings,   put_store,    put_power,
                                                  put_operations, put_settings, put_security, put_sessions,
                                                  put_simulated};

/* Writes group `g`; leaves it out again when it has not changed since the page's `after`. */
static void put_group(out *o, const app_status *s, int g, uint32_t newest, uint32_t after) {
  size_t start = o->len;
  GROUPS[g](o, s);
  status_memo *m = s->memo;
  if (!m || o->full) return;
  uint32_t h = g == STATUS_GROUP_OPERATIONS ? operations_hash(s)
               : g == STATUS_GROUP_SESSIONS ? sessions_hash(s)
                                            : fnv1a(FNV_START, o->p + start, o->len - start);
  if (h != m->hash[g] || m->changed_at[g] == 0) {
    m->hash[g] = h;
    m->changed_at[g] = newest + 1; /* 0: never written */
  }
  if (after > 0 && m->changed_at[g] < after + 1) {
    o->len = start;
    o->p[start] = 0;
  }
}

size_t app_status_json(const app_status *s, char *buffer, size_t size) {
  out o = {buffer, size, 0, 0};
  uint32_t newest = s->event_count ? s->events[s->event_count - 1].seq : 0;
  /* Past the newest: a page that polled before this boot, whose count started again. */
  uint32_t after = s->events_since > newest ? 0 : s->events_since;
  put(&o, "{");
  put_tick(&o, s);
  for (int g = 0; g < STATUS_GROUPS; g++) put_group(&o, s, g, newest, after);
  put_recent(&o, s, after);
  put_events(&o, s, after);
  put(&o, "}");
  return o.full ? 0 : o.len;
}

/* ---- The history the status shows (app_status_book) ---------------------------------- */

static const char *name_of(const char *const *names, size_t count, int32_t value) {
  return value >= 0 && (size_t)value < count ? names[value] : "?";
}
#define NAME(table, value) name_of(table, sizeof table / sizeof table[0], value)
static const char *const STATE_NAMES[] = STATUS_STATE_NAMES;
static const char *const OUTCOME_NAMES[] = STATUS_OUTCOME_NAMES;
static const char *const END_REASON_NAMES[] = STATUS_END_REASON_NAMES;
const char *app_status_state_name(int32_t state) { return NAME(STATE_NAMES, state); }
const char *app_status_outcome_name(int32_t outcome) { return NAME(OUTCOME_NAMES, outcome); }
const char *app_status_end_reason_name(int32_t reason) { return NAME(END_REASON_NAMES, reason); }

void app_status_event(app_status_book *b, uint32_t t, uint64_t wall_ms, const char *kind, int32_t operation_id,
                      int32_t attempt, int32_t outcome, int32_t reason) {
  status_event *e = &b->events[b->event_seq % APP_STATUS_EVENTS_KEPT];
  *e = (status_event){b->event_seq + 1, t, wall_ms, kind, operation_id, attempt,
                      app_status_outcome_name(outcome), app_status_end_reason_name(reason)};
  b->event_seq++;
}

void app_status_boot(app_status_book *b, uint32_t t, uint64_t wall_ms, int woke, uint32_t slept_ms) {
  if (woke) {
    app_status_event(b, t, wall_ms, "sleep", 0, 0, 0, 0);
    b->events[(b->event_seq - 1) % APP_STATUS_EVENTS_KEPT].wall_ms -= slept_ms;
  }
  app_status_event(b, t, wall_ms, "boot", 0, 0, 0, 0);
}

void app_status_ended_one(app_status_book *b, uint32_t t, uint64_t wall_ms, int32_t operation_id, int32_t reading,
                          int32_t attempts, int32_t reason, int32_t last_outcome, const char *detail, uint32_t took_ms) {
  app_status_event(b, t, wall_ms, "end", operation_id, attempts, 0, reason);
  app_status_ended *slot = &b->recent[b->recent_count++ % APP_STATUS_RECENT_KEPT];
  snprintf(slot->detail, sizeof slot->detail, "%s", detail);
  b->operations_ended++;
  slot->view = (status_ended){b->event_seq, operation_id, reading, app_status_end_reason_name(reason), attempts,
                              app_status_outcome_name(last_outcome), slot->detail, took_ms};
}

void app_status_pass(app_status_book *b, uint32_t now) {
  if (b->passes++ == 0) b->first_pass_at = now;
  else {
    b->last_gap_ms = now - b->last_pass_at;
    if (b->last_gap_ms > b->max_gap_ms) b->max_gap_ms = b->last_gap_ms;
    if (now - b->first_pass_at >= APP_PAGE_LOOP_STARTUP_MS && b->last_gap_ms > b->steady_max_gap_ms)
      b->steady_max_gap_ms = b->last_gap_ms;
    b->gap_histogram[b->last_gap_ms < APP_STATUS_GAP_BUCKETS - 1 ? b->last_gap_ms : APP_STATUS_GAP_BUCKETS - 1]++;
  }
  b->last_pass_at = now;
}

void app_status_reset_gaps(app_status_book *b) {
  b->max_gap_ms = 0;
  b->steady_max_gap_ms = 0;
  memset(b->gap_histogram, 0, sizeof b->gap_histogram);
}

static uint32_t p99_gap_ms(const app_status_book *b) {
  uint32_t total = 0, seen = 0;
  for (uint32_t ms = 0; ms < APP_STATUS_GAP_BUCKETS; ms++) total += b->gap_histogram[ms];
  uint32_t rank = (99 * total + 99) / 100;
  for (uint32_t ms = 0; ms < APP_STATUS_GAP_BUCKETS; ms++)
    if ((seen += b->gap_histogram[ms]) >= rank && seen > 0) return ms + 1;
  return 0;
}

void app_status_history(app_status_book *b, app_status *s) {
  s->passes = b->passes;
  s->last_gap_ms = b->last_gap_ms;
  s->max_gap_ms = b->max_gap_ms;
  s->steady_max_gap_ms = b->steady_max_gap_ms;
  s->p99_gap_ms = p99_gap_ms(b);
  s->store_operations_ended = b->operations_ended;
  uint32_t shown = b->recent_count < APP_STATUS_RECENT_KEPT ? b->recent_count : APP_STATUS_RECENT_KEPT;
  for (uint32_t i = 0; i < shown; i++)
    b->ended_view[i] = b->recent[(b->recent_count - 1 - i) % APP_STATUS_RECENT_KEPT].view;
  s->recent = b->ended_view;
  s->recent_count = shown;
  uint32_t first = b->event_seq > APP_STATUS_EVENTS_KEPT ? b->event_seq - APP_STATUS_EVENTS_KEPT : 0;
  for (uint32_t i = first; i < b->event_seq; i++) b->events_view[i - first] = b->events[i % APP_STATUS_EVENTS_KEPT];
  s->events = b->events_view;
  s->event_count = b->event_seq - first;
}
