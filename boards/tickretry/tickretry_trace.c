/* Event lines; tickretry_trace.h says why the format is fixed. */
#include "tickretry_trace.h"

#include <inttypes.h>
#include <stdio.h>

/* Indexed by the generated constants, so a renumbering cannot misname a value. */
static const char *const outcome_names[] = {
    [TICKRETRY_OUTCOME_NONE] = "NONE",           [TICKRETRY_OUTCOME_SUCCESS] = "SUCCESS",
    [TICKRETRY_OUTCOME_TRANSIENT] = "TRANSIENT", [TICKRETRY_OUTCOME_THROTTLED] = "THROTTLED",
    [TICKRETRY_OUTCOME_AMBIGUOUS] = "AMBIGUOUS", [TICKRETRY_OUTCOME_PERMANENT] = "PERMANENT",
    [TICKRETRY_OUTCOME_TIMEOUT] = "TIMEOUT",
};

static const char *const end_reason_names[] = {
    [TICKRETRY_END_REASON_NONE] = "NONE",         [TICKRETRY_END_REASON_SUCCEEDED] = "SUCCEEDED",
    [TICKRETRY_END_REASON_PERMANENT] = "PERMANENT", [TICKRETRY_END_REASON_EXHAUSTED] = "EXHAUSTED",
    [TICKRETRY_END_REASON_DEADLINE] = "DEADLINE", [TICKRETRY_END_REASON_BUDGET] = "BUDGET",
    [TICKRETRY_END_REASON_AMBIGUOUS] = "AMBIGUOUS", [TICKRETRY_END_REASON_CANCELLED] = "CANCELLED",
};

#define NAME_OF(table, value) \
  ((value) >= 0 && (size_t)(value) < sizeof table / sizeof table[0] ? table[value] : NULL)

const char *tickretry_outcome_name(int32_t outcome) { return NAME_OF(outcome_names, outcome); }

const char *tickretry_end_reason_name(int32_t reason) { return NAME_OF(end_reason_names, reason); }

/* formatEvent prints a number where the value has no name; so does this, into `buf`. */
static const char *name_or_number(const char *(*name_of)(int32_t), int32_t value, char buf[12]) {
  const char *name = name_of(value);
  if (name) return name;
  snprintf(buf, 12, "%" PRId32, value);
  return buf;
}

/* The line of an event that names an attempt and nothing else: start, timeout, up. */
static int attempt_line(const tickretry_loop_event *e, const char *word, char *out, size_t size) {
  return snprintf(out, size, "%" PRIu32 " %s h=%" PRId32 " a=%" PRId32, e->t, word, e->handle,
                  e->attempt);
}

int tickretry_loop_event_format(const tickretry_loop_event *e, char *out, size_t size) {
  char number[12];
  switch (e->kind) {
    case TICKRETRY_LOOP_EVENT_START:
      return attempt_line(e, "start", out, size);
    case TICKRETRY_LOOP_EVENT_REPORT:
      return snprintf(out, size, "%" PRIu32 " report h=%" PRId32 " a=%" PRId32 " %s -> %" PRId32,
                      e->t, e->handle, e->attempt, name_or_number(tickretry_outcome_name, e->outcome, number),
                      e->result);
    case TICKRETRY_LOOP_EVENT_TIMEOUT:
      return attempt_line(e, "timeout", out, size);
    case TICKRETRY_LOOP_EVENT_END:
      return snprintf(out, size, "%" PRIu32 " end h=%" PRId32 " %s after %" PRId32, e->t, e->handle,
                      name_or_number(tickretry_end_reason_name, e->reason, number), e->attempt);
    case TICKRETRY_LOOP_EVENT_UP:
      return attempt_line(e, "up", out, size);
    case TICKRETRY_LOOP_EVENT_DROP:
      return snprintf(out, size, "%" PRIu32 " drop h=%" PRId32 " -> %" PRId32, e->t, e->handle,
                      e->result);
    case TICKRETRY_LOOP_EVENT_LINK_UP:
      return snprintf(out, size, "%" PRIu32 " link-up -> %" PRId32, e->t, e->result);
  }
  return snprintf(out, size, "%" PRIu32 " event %d", e->t, (int)e->kind);
}
