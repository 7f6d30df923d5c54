/* The main-loop logic; tickretry_loop.h explains the pass, and host/library/src/loop.ts is
 * its TypeScript twin, step for step. */
#include "tickretry_loop.h"

#include <string.h>

#include "tickretry_ticks.h"

/* An attempt poll handed out in this pass, started once the state is persisted. */
typedef struct polled {
  int32_t handle;
  int32_t attempt;
  int32_t operation_id;
} polled;

static void emit(const tickretry_loop *loop, const tickretry_loop_event *event) {
  if (loop->hal->on_event) loop->hal->on_event(loop->hal->ctx, event);
}

/* The slot of a handle the loop was given, or -1 (a host bug: tickretry_slot refuses it). */
static int32_t slot_of(int32_t handle) {
  int32_t s = tickretry_slot(handle);
  return s >= 0 && s < TICKRETRY_LIMIT_OPERATIONS ? s : -1;
}

void tickretry_loop_init(tickretry_loop *loop, const tickretry_loop_hal *hal) {
  memset(loop, 0, sizeof *loop);
  loop->hal = hal;
  if ((hal->dropped || hal->link_up) && !hal->sessions) loop->fault = TICKRETRY_LOOP_NO_SESSIONS;
}

void tickretry_loop_resume(tickretry_loop *loop, const tickretry_loop_hal *hal, const tickretry_loop_slots *slots,
                        int attempts_lost) {
  tickretry_loop_init(loop, hal);
  loop->slots = *slots;
  if (attempts_lost) memset(loop->slots.outstanding, 0, sizeof loop->slots.outstanding);
}

int32_t tickretry_loop_begin(tickretry_loop *loop, uint32_t policy, uint32_t now) {
  int32_t handle = tickretry_begin(policy, now);
  if (handle >= 0) loop->slots.live++;
  return handle;
}

void tickretry_loop_abandon(tickretry_loop *loop, int32_t handle) {
  int32_t s = slot_of(handle);
  if (s >= 0 && loop->slots.outstanding[s] > 0) loop->slots.outstanding[s]--;
}

/* Step 1: an attempt whose deadline has passed unanswered was timed out by the module,
 * unless its operation went another way meanwhile (its last outcome says which). */
static void note_timeouts(tickretry_loop *loop, uint32_t now) {
  int applied = 0;
  for (int s = 0; s < TICKRETRY_LIMIT_OPERATIONS; s++) {
    tickretry_loop_timing *t = &loop->timing[s];
    if (!t->handle || !tickretry_tick_reached(now, t->deadline)) continue;
    if (!applied) { /* apply what is due by now, as the report or poll after it would */
      tickretry_next_due(now);
      applied = 1;
    }
    int32_t h = t->handle;
    t->handle = 0;
    if (tickretry_last_outcome(h) != TICKRETRY_OUTCOME_TIMEOUT) continue;
    emit(loop, &(tickretry_loop_event){.kind = TICKRETRY_LOOP_EVENT_TIMEOUT, .t = now, .handle = h,
                               .attempt = t->attempt});
  }
}

/* The session steps, reached only through a HAL's `sessions` (tickretry_loop_sessions), so
 * that a build without sessions links none of them. */
struct tickretry_loop_session_steps {
  void (*reported)(const tickretry_loop *loop, const tickretry_loop_result *r, int32_t result, uint32_t now);
  void (*connections)(tickretry_loop *loop, uint32_t now);
};

/* Step 2, for sessions: a SUCCESS that leaves a session UP tells the board its connection
 * is established. */
static void session_reported(const tickretry_loop *loop, const tickretry_loop_result *r, int32_t result,
                             uint32_t now) {
  if (result != TICKRETRY_RESULT_OK || r->outcome != TICKRETRY_OUTCOME_SUCCESS) return;
  if (tickretry_state(r->handle) != TICKRETRY_STATE_UP) return;
  emit(loop, &(tickretry_loop_event){.kind = TICKRETRY_LOOP_EVENT_UP, .t = now, .handle = r->handle,
                             .attempt = r->attempt,
                             .operation_id = tickretry_operation_id(r->handle)});
}

/* Steps 3 and 4: the connections the board lost since the last pass, then the link's
 * return. A drop the module answers NOT_UP (it had the session down already: a restore)
 * changes nothing there. */
static void connection_events(tickretry_loop *loop, uint32_t now) {
  const tickretry_loop_hal *hal = loop->hal;
  int32_t h;
  while (hal->dropped && hal->dropped(hal->ctx, now, &h)) {
    emit(loop, &(tickretry_loop_event){.kind = TICKRETRY_LOOP_EVENT_DROP, .t = now, .handle = h,
                               .result = tickretry_drop(h, now)});
  }
  if (hal->link_up && hal->link_up(hal->ctx, now)) {
    emit(loop, &(tickretry_loop_event){.kind = TICKRETRY_LOOP_EVENT_LINK_UP, .t = now,
                               .result = tickretry_link_up(now)});
  }
}

const struct tickretry_loop_session_steps tickretry_loop_sessions = {session_reported, connection_events};

/* Step 2: every attempt finished by now, earliest first. A result for an operation that
 * ended meanwhile is still reported: the module answers STALE_REPORT and counts it. */
static void report_finished(tickretry_loop *loop, uint32_t now) {
  const struct tickretry_loop_session_steps *sessions = loop->hal->sessions;
  tickretry_loop_result r;
  while (loop->hal->collect(loop->hal->ctx, now, &r)) {
    tickretry_loop_abandon(loop, r.handle);
    int32_t result = tickretry_report(r.handle, r.attempt, r.outcome, r.retry_after, now);
    int32_t s = slot_of(r.handle);
    if (s >= 0 && result == TICKRETRY_RESULT_OK) loop->timing[s].handle = 0;
    emit(loop, &(tickretry_loop_event){.kind = TICKRETRY_LOOP_EVENT_REPORT, .t = now, .handle = r.handle,
                               .attempt = r.attempt, .outcome = r.outcome, .result = result});
    if (sessions) sessions->reported(loop, &r, result, now);
  }
}

/* Records a negative answer that is not NONE (the engine failed, or init was never
 * called) as the loop's fault; returns whether the answer was a handle. */
static int is_handle(tickretry_loop *loop, int32_t answer) {
  if (answer < 0 && answer != TICKRETRY_RESULT_NONE) loop->fault = answer;
  return answer >= 0;
}

/* Steps 5 and 8: each operation that ended, once, from ended(); then the late-answer rule. */
static void retire(tickretry_loop *loop, uint32_t now) {
  for (int32_t h = tickretry_ended(now); is_handle(loop, h); h = tickretry_ended(now)) {
    int32_t s = slot_of(h);
    if (s >= 0) loop->slots.ended[s] = h;
    if (loop->slots.live > 0) loop->slots.live--;
    emit(loop, &(tickretry_loop_event){.kind = TICKRETRY_LOOP_EVENT_END, .t = now, .handle = h,
                               .attempt = tickretry_attempt(h),
                               .operation_id = tickretry_operation_id(h),
                               .reason = tickretry_end_reason(h)});
  }
  for (int s = 0; s < TICKRETRY_LIMIT_OPERATIONS; s++) {
    int32_t h = loop->slots.ended[s];
    if (h && loop->slots.outstanding[s] == 0 && tickretry_release(h) == TICKRETRY_RESULT_OK) {
      loop->slots.ended[s] = 0;
    }
  }
}

/* Step 7: poll until NONE, at most one attempt per slot (one is in flight per operation);
 * what a full buffer leaves is still due at the next pass. Returns how many. */
static int poll_due(tickretry_loop *loop, uint32_t now, polled *out) {
  int n = 0;
  for (int32_t h; n < TICKRETRY_LIMIT_OPERATIONS && is_handle(loop, h = tickretry_poll(now)); n++) {
    int32_t s = slot_of(h);
    int32_t attempt = tickretry_attempt(h);
    if (s >= 0) {
      loop->slots.outstanding[s]++;
      loop->timing[s] = (tickretry_loop_timing){h, attempt, tickretry_attempt_deadline(h)};
    }
    out[n] = (polled){h, attempt, tickretry_operation_id(h)};
  }
  return n;
}

uint32_t tickretry_loop_pass(tickretry_loop *loop) {
  const tickretry_loop_hal *hal = loop->hal;
  polled started[TICKRETRY_LIMIT_OPERATIONS];
  int n = 0;
  uint32_t now = hal->ticks(hal->ctx);
  if (loop->fault == 0) note_timeouts(loop, now);
  if (loop->fault == 0) report_finished(loop, now);
  if (loop->fault == 0 && hal->sessions) hal->sessions->connections(loop, now);
  if (loop->fault == 0) retire(loop, now);
  if (loop->fault == 0 && hal->begin_due) hal->begin_due(hal->ctx, loop, now);
  if (loop->fault == 0) n = poll_due(loop, now, started);
  if (loop->fault == 0) retire(loop, now);
  if (loop->fault == 0) {
    if (hal->persist) hal->persist(hal->ctx, now);
    for (int i = 0; i < n; i++) {
      emit(loop, &(tickretry_loop_event){.kind = TICKRETRY_LOOP_EVENT_START, .t = now, .handle = started[i].handle,
                                 .attempt = started[i].attempt, .operation_id = started[i].operation_id});
      hal->start_attempt(hal->ctx, started[i].handle, started[i].attempt, started[i].operation_id, now);
    }
  }
  if (hal->serve) hal->serve(hal->ctx);
  return loop->fault == 0 ? tickretry_next_due(now) : 0;
}

int32_t tickretry_loop_fault(const tickretry_loop *loop) { return loop->fault; }

uint32_t tickretry_loop_live(const tickretry_loop *loop) { return loop->slots.live; }
