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

/* Indexed by minus the code: OK is 0, NONE -1 and every error below. */
static const char *const result_names[] = {
    [-TICKRETRY_RESULT_OK] = "OK",
    [-TICKRETRY_RESULT_NONE] = "NONE",
    [-TICKRETRY_ERROR_NOT_INITIALIZED] = "NOT_INITIALIZED",
    [-TICKRETRY_ERROR_BAD_HANDLE] = "BAD_HANDLE",
    [-TICKRETRY_ERROR_BAD_POLICY] = "BAD_POLICY",
    [-TICKRETRY_ERROR_BAD_FIELD] = "BAD_FIELD",
    [-TICKRETRY_ERROR_SPAN_TOO_LARGE] = "SPAN_TOO_LARGE",
    [-TICKRETRY_ERROR_TABLE_FULL] = "TABLE_FULL",
    [-TICKRETRY_ERROR_BAD_OUTCOME] = "BAD_OUTCOME",
    [-TICKRETRY_ERROR_STALE_REPORT] = "STALE_REPORT",
    [-TICKRETRY_ERROR_NOT_LIVE] = "NOT_LIVE",
    [-TICKRETRY_ERROR_STILL_LIVE] = "STILL_LIVE",
    [-TICKRETRY_ERROR_BAD_STATUS] = "BAD_STATUS",
    [-TICKRETRY_ERROR_BAD_COUNTER] = "BAD_COUNTER",
    [-TICKRETRY_ERROR_IMAGE_LENGTH] = "IMAGE_LENGTH",
    [-TICKRETRY_ERROR_IMAGE_FORMAT] = "IMAGE_FORMAT",
    [-TICKRETRY_ERROR_IMAGE_ABI] = "IMAGE_ABI",
    [-TICKRETRY_ERROR_IMAGE_CRC] = "IMAGE_CRC",
    [-TICKRETRY_ERROR_IMAGE_FIELD] = "IMAGE_FIELD",
    [-TICKRETRY_ERROR_NOT_UP] = "NOT_UP",
};

#define NAME_OF(table, value) \
  ((value) >= 0 && (size_t)(value) < sizeof table / sizeof table[0] ? table[value] : NULL)

const char *tickretry_outcome_name(int32_t outcome) { return NAME_OF(outcome_names, outcome); }

const char *tickretry_end_reason_name(int32_t reason) { return NAME_OF(end_reason_names, reason); }

const char *tickretry_result_name(int32_t result) {
  return result <= 0 ? NAME_OF(result_names, -(int64_t)result) : NULL; /* 64 bits: -INT32_MIN */
}

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
  char number[12], result[12];
  switch (e->kind) {
    case TICKRETRY_LOOP_EVENT_START:
      return attempt_line(e, "start", out, size);
    case TICKRETRY_LOOP_EVENT_REPORT:
      return snprintf(out, size, "%" PRIu32 " report h=%" PRId32 " a=%" PRId32 " %s -> %s", e->t, e->handle,
                      e->attempt, name_or_number(tickretry_outcome_name, e->outcome, number),
                      name_or_number(tickretry_result_name, e->result, result));
    case TICKRETRY_LOOP_EVENT_TIMEOUT:
      return attempt_line(e, "timeout", out, size);
    case TICKRETRY_LOOP_EVENT_END:
      return snprintf(out, size, "%" PRIu32 " end h=%" PRId32 " %s after %" PRId32, e->t, e->handle,
                      name_or_number(tickretry_end_reason_name, e->reason, number), e->attempt);
    case TICKRETRY_LOOP_EVENT_UP:
      return attempt_line(e, "up", out, size);
    case TICKRETRY_LOOP_EVENT_DROP:
      return snprintf(out, size, "%" PRIu32 " drop h=%" PRId32 " -> %s", e->t, e->handle,
                      name_or_number(tickretry_result_name, e->result, result));
    case TICKRETRY_LOOP_EVENT_LINK_UP:
      return snprintf(out, size, "%" PRIu32 " link-up -> %s", e->t,
                      name_or_number(tickretry_result_name, e->result, result));
  }
  return snprintf(out, size, "%" PRIu32 " event %d", e->t, (int)e->kind);
}
