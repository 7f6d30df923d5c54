/* The main-loop logic; device_loop.h explains the pass. */
#include "device_loop.h"

#include <string.h>

static void emit(const device_loop *loop, const device_event *event) {
  if (loop->hal->on_event) loop->hal->on_event(loop->hal->ctx, event);
}

static device_op *find(device_loop *loop, int32_t handle) {
  for (uint32_t i = 0; i < loop->count; i++) {
    if (loop->ops[i].handle == handle) return &loop->ops[i];
  }
  return NULL;
}

void device_loop_init(device_loop *loop, const device_hal *hal) {
  memset(loop, 0, sizeof *loop);
  loop->hal = hal;
}

int32_t device_loop_begin(device_loop *loop, uint32_t policy) {
  if (loop->count == TICKRETRY_LIMIT_OPERATIONS) return TICKRETRY_ERROR_TABLE_FULL;
  int32_t handle = tickretry_begin(policy, loop->hal->ticks(loop->hal->ctx));
  if (handle < 0) return handle;
  loop->ops[loop->count++] = (device_op){.handle = handle};
  return handle;
}

/* Step 2: every attempt finished by now, earliest first. A result for an operation that
 * ended meanwhile is still reported: the module answers STALE_REPORT and counts it. */
static void report_finished(device_loop *loop, uint32_t now) {
  device_result r;
  while (loop->hal->collect(loop->hal->ctx, now, &r)) {
    device_op *op = find(loop, r.handle);
    if (op && op->outstanding) op->outstanding--;
    int32_t result = tickretry_report(r.handle, r.attempt, r.outcome, r.retry_after, now);
    emit(loop, &(device_event){.kind = DEVICE_EVENT_REPORT, .t = now, .handle = r.handle,
                               .attempt = r.attempt, .outcome = r.outcome, .result = result});
  }
}

/* Step 3: poll returns handles until NONE. Any other negative answer (the engine failed,
 * or init was never called) is no "nothing due": it is kept as the loop's fault and ends
 * the pass. Returns 0 then. */
static int start_due(device_loop *loop, uint32_t now) {
  for (;;) {
    int32_t h = tickretry_poll(now);
    if (h == TICKRETRY_RESULT_NONE) return 1;
    if (h < 0) {
      loop->fault = h;
      return 0;
    }
    int32_t attempt = tickretry_attempt(h);
    int32_t id = tickretry_operation_id(h);
    device_op *op = find(loop, h);
    if (op) op->outstanding++;
    emit(loop, &(device_event){.kind = DEVICE_EVENT_START, .t = now, .handle = h,
                               .attempt = attempt, .operation_id = id});
    loop->hal->start_attempt(loop->hal->ctx, h, attempt, id);
  }
}

/* Step 4: END once per operation, in begin order; the slot is released only when no
 * attempt of it is still out, so that a late answer finds its handle and is counted
 * STALE_REPORT rather than BAD_HANDLE (the same answers host/driver.ts gets). */
static void retire_ended(device_loop *loop, uint32_t now) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < loop->count; i++) {
    device_op op = loop->ops[i];
    if (!op.ended && tickretry_state(op.handle) == TICKRETRY_STATE_DONE) {
      op.ended = 1;
      emit(loop, &(device_event){.kind = DEVICE_EVENT_END, .t = now, .handle = op.handle,
                                 .attempt = tickretry_attempt(op.handle),
                                 .operation_id = tickretry_operation_id(op.handle),
                                 .reason = tickretry_end_reason(op.handle)});
    }
    if (op.ended && op.outstanding == 0 && tickretry_release(op.handle) == TICKRETRY_RESULT_OK) {
      continue;
    }
    loop->ops[kept++] = op;
  }
  loop->count = kept;
}

uint32_t device_loop_pass(device_loop *loop) {
  const device_hal *hal = loop->hal;
  uint32_t now = hal->ticks(hal->ctx);
  if (loop->fault == 0) report_finished(loop, now);
  if (loop->fault == 0 && start_due(loop, now)) retire_ended(loop, now);
  if (hal->serve) hal->serve(hal->ctx);
  return loop->fault == 0 ? tickretry_next_due(now) : 0;
}

int32_t device_loop_fault(const device_loop *loop) { return loop->fault; }

uint32_t device_loop_live(const device_loop *loop) {
  uint32_t live = 0;
  for (uint32_t i = 0; i < loop->count; i++) live += !loop->ops[i].ended;
  return live;
}

uint32_t device_loop_held(const device_loop *loop) { return loop->count; }
