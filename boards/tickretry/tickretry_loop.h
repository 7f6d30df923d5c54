/* The firmware's main-loop logic over tickretry.h, in plain C and free of any board:
 * the board supplies a small HAL (read the tick counter, collect finished attempts, hand
 * back dropped connections, say when the link is back, begin its due work, persist, start
 * an attempt, see events, serve the setup page) and calls tickretry_loop_pass on every pass
 * of its loop. host/library/src/loop.ts is its TypeScript twin (the same HAL, the same
 * pass, the same slots), and the differential tests run the two pass by pass on the same
 * scenarios. One pass (docs/ABI.md, "The main loop"):
 *   1. read now once; nothing else in the pass reads the tick counter; note each attempt
 *      whose deadline passed unanswered, which the module timed out (TICKRETRY_LOOP_EVENT_TIMEOUT);
 *   2. report every attempt that finished by now, in the order collect hands them back;
 *      a SUCCESS that made a session UP is TICKRETRY_LOOP_EVENT_UP (its connection is established);
 *   3. drop every connection `dropped` hands back (TICKRETRY_LOOP_EVENT_DROP): after the reports,
 *      since a connection dropped after the answer that brought it up;
 *   4. when `link_up` says the link is back, kick what waits (TICKRETRY_LOOP_EVENT_LINK_UP): after
 *      the drops, so the sessions a link loss dropped are kicked too;
 *   5. retire: take every ended operation from ended(now) (lowest slot first), then
 *      release each one none of whose attempts is still out (the late-answer rule of
 *      docs/ABI.md: an answer that comes back before the release gets STALE_REPORT;
 *      none comes after it);
 *   6. begin_due: the board begins what it has due (a slot freed in 5 is free for it);
 *   7. poll until NONE, counting each attempt out at once;
 *   8. retire again (polling may end an operation: its last attempt timed out);
 *   9. persist, then 10. start the attempts polled in 7 (the persist-before-send rule:
 *      the state that holds an attempt is stored before the attempt leaves);
 *  11. serve the page; return how long the board may wait before the next pass.
 * Nothing here blocks or sleeps: the HAL starts attempts elsewhere (a task, a
 * non-blocking client) and the module times out an attempt that never comes back.
 * What the loop keeps between passes is plain data (tickretry_loop_slots), so a board that
 * stores the module's image (tickretry_save) stores it beside the image and gives it
 * back to tickretry_loop_resume after a restore.
 */
#ifndef TICKRETRY_LOOP_H
#define TICKRETRY_LOOP_H

#include <stdint.h>

#include "tickretry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A finished attempt, as the HAL hands it back. */
typedef struct tickretry_loop_result {
  int32_t handle;
  int32_t attempt;
  int32_t outcome;      /* TICKRETRY_OUTCOME_SUCCESS to _PERMANENT */
  uint32_t retry_after; /* ticks; 0: none */
} tickretry_loop_result;

typedef enum tickretry_loop_event_kind {
  /* an attempt was started: handle, attempt, operation_id */
  TICKRETRY_LOOP_EVENT_START,
  /* a finished attempt was reported: handle, attempt, outcome, result */
  TICKRETRY_LOOP_EVENT_REPORT,
  /* the module timed an attempt out (no answer by its deadline): handle, attempt */
  TICKRETRY_LOOP_EVENT_TIMEOUT,
  /* an operation ended: handle, reason, attempt (attempts made), operation_id */
  TICKRETRY_LOOP_EVENT_END,
  /* a session's connect attempt was reported SUCCESS and it is UP: handle, attempt,
   * operation_id; its connection is established */
  TICKRETRY_LOOP_EVENT_UP,
  /* a connection `dropped` handed back was dropped: handle, result (drop's: OK, or NOT_UP
   * when the module had it down already) */
  TICKRETRY_LOOP_EVENT_DROP,
  /* `link_up` said the link is back: result (linkUp's) */
  TICKRETRY_LOOP_EVENT_LINK_UP
} tickretry_loop_event_kind;

/* What happened, for logs and traces; fields a kind does not name are 0. */
typedef struct tickretry_loop_event {
  tickretry_loop_event_kind kind;
  uint32_t t;
  int32_t handle;
  int32_t attempt;
  int32_t operation_id;
  int32_t outcome;
  int32_t result;
  int32_t reason;
} tickretry_loop_event;

struct tickretry_loop;
/* The pass's session steps (the UP event, then steps 3 and 4), in tickretry_loop.c. */
struct tickretry_loop_session_steps;
/* A board with sessions points its HAL's `sessions` here; one without leaves it NULL. */
extern const struct tickretry_loop_session_steps tickretry_loop_sessions;

/* A HAL that sets `dropped` or `link_up` without `sessions` stops the loop with this fault
 * (the hooks would never be asked). */
#define TICKRETRY_LOOP_NO_SESSIONS (-200)

typedef struct tickretry_loop_hal {
  void *ctx; /* passed to every hook */
  /* The free-running u32 tick counter (millis() on Arduino); it may wrap. */
  uint32_t (*ticks)(void *ctx);
  /* Takes one attempt that finished by `now`, earliest first: 1, or 0 when none has.
   * Every started attempt must come back here (or through tickretry_loop_abandon)
   * eventually, late or not: the loop keeps the slot until it has. */
  int (*collect)(void *ctx, uint32_t now, tickretry_loop_result *out);
  /* &tickretry_loop_sessions to run sessions (the UP event, `dropped`, `link_up`), or NULL for
   * a board without them: its build then links neither these steps nor the module's drop,
   * linkUp and state (about 1.1 KB of RV32 text with the wasm2c backend). */
  const struct tickretry_loop_session_steps *sessions;
  /* With `sessions`: takes one session whose established connection (TICKRETRY_LOOP_EVENT_UP) was lost by `now`:
   * 1 and its handle, or 0 when none was; may be NULL. A connect attempt that fails is an
   * answer for collect, not a drop. */
  int (*dropped)(void *ctx, uint32_t now, int32_t *handle);
  /* With `sessions`: whether the link came back since the last pass (Wi-Fi associated again, the broker
   * answers): the loop then tells the module (linkUp), which kicks what waits; may be NULL. */
  int (*link_up)(void *ctx, uint32_t now);
  /* Begins what the board has due through tickretry_loop_begin at `now`; may be NULL. */
  void (*begin_due)(void *ctx, struct tickretry_loop *loop, uint32_t now);
  /* Stores what must survive a reset (the image when tickretry_changes() moved), before
   * any attempt of the pass leaves; may be NULL. */
  void (*persist)(void *ctx, uint32_t now);
  /* Starts attempt `attempt` of an operation without waiting for it; operation_id is
   * the same on every attempt (an idempotency key). */
  void (*start_attempt)(void *ctx, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t now);
  /* Sees every event; may be NULL. */
  void (*on_event)(void *ctx, const tickretry_loop_event *event);
  /* Serves the setup page (one non-blocking turn); may be NULL. */
  void (*serve)(void *ctx);
} tickretry_loop_hal;

/* What the loop keeps per slot of the module (tickretry_slot), as plain data. */
typedef struct tickretry_loop_slots {
  int32_t ended[TICKRETRY_LIMIT_OPERATIONS];       /* handle ended() gave, until released; 0: none */
  uint16_t outstanding[TICKRETRY_LIMIT_OPERATIONS]; /* attempts started and not yet collected */
  uint32_t live;                                    /* operations begun and not yet ended */
} tickretry_loop_slots;

/* The attempt the module has out in a slot, until answered in time or timed out: for the
 * TIMEOUT event only, so not stored with the slots (a resume starts it afresh). */
typedef struct tickretry_loop_timing {
  int32_t handle; /* 0: none */
  int32_t attempt;
  uint32_t deadline;
} tickretry_loop_timing;

typedef struct tickretry_loop {
  const tickretry_loop_hal *hal;
  tickretry_loop_slots slots;
  tickretry_loop_timing timing[TICKRETRY_LIMIT_OPERATIONS];
  int32_t fault; /* 0, what poll or ended answered that was neither a handle nor NONE, or
                  * TICKRETRY_LOOP_NO_SESSIONS */
} tickretry_loop;

void tickretry_loop_init(tickretry_loop *loop, const tickretry_loop_hal *hal);
/* Begins an operation under `policy` at `now`: its handle, or an error. Begin from the
 * HAL's begin_due (or between passes): the pass has then released what ended, so a slot
 * freed in this pass is free for the begin (TABLE_FULL comes no sooner than it must). */
int32_t tickretry_loop_begin(tickretry_loop *loop, uint32_t policy, uint32_t now);
/* The board closed an attempt of `handle` without an answer (its operation ended, or
 * the module timed it out): it is no longer out, and nothing of it will be reported. */
void tickretry_loop_abandon(tickretry_loop *loop, int32_t handle);
/* One pass (above). Returns the ticks until the module has work (0: now), or
 * TICKRETRY_NEXT_DUE_IDLE (about 49.7 days) when nothing is live; finished attempts may
 * come sooner, so a board sleeps at most tickretry_loop_sleep(due, its own bound).
 * Once poll or ended has answered anything but a handle or NONE (the engine failed:
 * TICKRETRY_ENGINE_FAILED, tickretry_error() says where), the pass only serves the page
 * and returns 0: check tickretry_loop_fault(). */
uint32_t tickretry_loop_pass(tickretry_loop *loop);
/* 0, or the code that stopped the loop (above, or TICKRETRY_LOOP_NO_SESSIONS from the HAL). */
int32_t tickretry_loop_fault(const tickretry_loop *loop);
/* How long to sleep after a pass that returned `due`: at most `most` ticks, since IDLE
 * and long waits say nothing of the next answer, the next reading or the page. */
static inline uint32_t tickretry_loop_sleep(uint32_t due, uint32_t most) {
  return due < most ? due : most;
}
/* Operations begun that have not ended. */
uint32_t tickretry_loop_live(const tickretry_loop *loop);
/* Takes up a loop after tickretry_restore, with the tickretry_loop_slots stored beside the
 * image. attempts_lost: the restore had TICKRETRY_RESTORE_FLAG_ATTEMPTS_LOST (every
 * request was abandoned and no answer will come), so nothing is outstanding any more. */
void tickretry_loop_resume(tickretry_loop *loop, const tickretry_loop_hal *hal, const tickretry_loop_slots *slots,
                        int attempts_lost);

#ifdef __cplusplus
}
#endif

#endif
