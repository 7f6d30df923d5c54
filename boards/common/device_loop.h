/* The firmware's main-loop logic over tickretry.h, in plain C and free of any board:
 * the board supplies a small HAL (read the tick counter, start an attempt, hand back
 * finished attempts, serve the setup page) and calls device_loop_pass on every pass of
 * its loop. One pass has the shape of a step of host/driver.ts's runOperations, so the
 * differential tests drive this very code against the Node driver:
 *   1. read now once;
 *   2. report every attempt that has finished by now, in the order they finished;
 *   3. poll until NONE, starting one attempt per handle returned;
 *   4. notice operations that ended (in begin order) and free their slots;
 *   5. serve the page; return how long the board may wait before the next pass.
 * Nothing here blocks or sleeps: the HAL starts attempts elsewhere (a task, a
 * non-blocking client) and the module times out an attempt that never comes back.
 */
#ifndef DEVICE_LOOP_H
#define DEVICE_LOOP_H

#include <stdint.h>

#include "tickretry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A finished attempt, as the HAL hands it back. */
typedef struct device_result {
  int32_t handle;
  int32_t attempt;
  int32_t outcome;      /* TICKRETRY_OUTCOME_SUCCESS to _PERMANENT */
  uint32_t retry_after; /* ticks; 0: none */
} device_result;

typedef enum device_event_kind {
  DEVICE_EVENT_START,  /* an attempt was started: handle, attempt, operation_id */
  DEVICE_EVENT_REPORT, /* a finished attempt was reported: handle, attempt, outcome, result */
  DEVICE_EVENT_END     /* an operation ended: handle, reason, attempt (attempts made) */
} device_event_kind;

/* What happened, for logs and traces; fields a kind does not name are 0. */
typedef struct device_event {
  device_event_kind kind;
  uint32_t t;
  int32_t handle;
  int32_t attempt;
  int32_t operation_id;
  int32_t outcome;
  int32_t result;
  int32_t reason;
} device_event;

typedef struct device_hal {
  void *ctx; /* passed to every hook */
  /* The free-running u32 tick counter (millis() on Arduino); it may wrap. */
  uint32_t (*ticks)(void *ctx);
  /* Starts attempt `attempt` of an operation without waiting for it; operation_id is
   * the same on every attempt (an idempotency key). Every started attempt must come back
   * through collect eventually, late or not: the loop keeps the slot until it has. */
  void (*start_attempt)(void *ctx, int32_t handle, int32_t attempt, int32_t operation_id);
  /* Takes one attempt that finished by `now`, earliest first: 1, or 0 when none has. */
  int (*collect)(void *ctx, uint32_t now, device_result *out);
  /* Serves the setup page (one non-blocking turn); may be NULL. */
  void (*serve)(void *ctx);
  /* Sees every event; may be NULL. */
  void (*on_event)(void *ctx, const device_event *event);
} device_hal;

/* An operation this loop began and has not freed yet. */
typedef struct device_op {
  int32_t handle;
  uint16_t outstanding; /* attempts started and not yet collected */
  uint8_t ended;        /* END was seen; the slot is freed once nothing is outstanding */
} device_op;

typedef struct device_loop {
  const device_hal *hal;
  device_op ops[TICKRETRY_LIMIT_OPERATIONS]; /* in begin order */
  uint32_t count;
  int32_t fault; /* 0, or what poll answered that was neither a handle nor NONE */
} device_loop;

void device_loop_init(device_loop *loop, const device_hal *hal);
/* Begins an operation under `policy` at the current tick: its handle, or an error.
 * Begin after a pass rather than before it: the pass releases what ended, so a slot
 * freed in this pass is free for the begin (TABLE_FULL comes no sooner than it must). */
int32_t device_loop_begin(device_loop *loop, uint32_t policy);
/* One pass (above). Returns the ticks until the module has work (0: now), or
 * TICKRETRY_NEXT_DUE_IDLE (about 49.7 days) when nothing is live; finished attempts may
 * come sooner, so a board sleeps at most device_loop_sleep(due, its own bound).
 * Once poll has answered anything but a handle or NONE (the engine failed:
 * TICKRETRY_ENGINE_FAILED, tickretry_error() says where), the pass only serves the page
 * and returns 0: check device_loop_fault(). */
uint32_t device_loop_pass(device_loop *loop);
/* 0, or the code that stopped the loop (above). */
int32_t device_loop_fault(const device_loop *loop);
/* How long to sleep after a pass that returned `due`: at most `most` ticks, since IDLE
 * and long waits say nothing of the next answer, the next reading or the page. */
static inline uint32_t device_loop_sleep(uint32_t due, uint32_t most) {
  return due < most ? due : most;
}
/* Operations begun that have not ended. */
uint32_t device_loop_live(const device_loop *loop);
/* Operations begun and not yet freed: the live ones and the ended ones still waiting for
 * an attempt to come back. 0 means no answer can arrive for any handle of this module
 * instance, so it may be replaced or re-initialised. */
uint32_t device_loop_held(const device_loop *loop);

#ifdef __cplusplus
}
#endif

#endif
