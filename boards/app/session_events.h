/* What the sketch's two sessions (wifi_session.c, mqtt_session.c) share. Arduino's Wi-Fi
 * events and esp-mqtt's arrive on tasks of their own, and the module may be called from
 * loop() only, so each handler just puts what it saw into a single-producer,
 * single-consumer ring, which the HAL's collect drains inside the pass. The sessions call
 * the module themselves never: an attempt's answer goes back through the board's
 * `finished` callback (to collect, as the HTTP ones do), a lost connection and the link's
 * return wait in session_news for the HAL's `dropped` and `link_up`, so the tickretry loop
 * drops and kicks (tickretry_loop.h, steps 2 to 4). */
#ifndef SESSION_EVENTS_H
#define SESSION_EVENTS_H

#include <stdint.h>

#include "tickretry_loop.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SESSION_RING_ITEMS 32

typedef struct session_seen {
  uint8_t kind;  /* what the handler saw (each session's own kinds) */
  int32_t value; /* what goes with it (a msg_id, a CONNACK code, a disconnect reason) */
} session_seen;

typedef struct session_ring {
  session_seen items[SESSION_RING_ITEMS];
  volatile uint32_t head, tail; /* head written by the event task only, tail by loop() only */
  uint32_t lost;                /* put into a full ring: the module's timeouts cover them */
} session_ring;

/* What a drain saw for the tickretry loop's session steps; loop task only. */
typedef struct session_news {
  uint8_t dropped;   /* the established connection was lost: for the HAL's `dropped` */
  uint8_t link_back; /* the link came (back) up: for the HAL's `link_up` */
} session_news;

/* The HAL's `dropped` for one session: 1 and its handle when it lost its connection. */
static inline int session_take_drop(session_news *n, int32_t handle, int32_t *out) {
  if (!n->dropped) return 0;
  n->dropped = 0;
  *out = handle;
  return 1;
}

/* The HAL's `link_up` for one session: whether its link came back since it was asked. */
static inline int session_take_link(session_news *n) {
  int back = n->link_back;
  n->link_back = 0;
  return back;
}

typedef void (*session_finished_fn)(void *ctx, const tickretry_loop_result *r);

/* The event task's side: only this task writes head, and the item before it. */
static inline void session_ring_put(session_ring *r, uint8_t kind, int32_t value) {
  uint32_t head = r->head;
  if (head - r->tail >= SESSION_RING_ITEMS) {
    r->lost++;
    return;
  }
  r->items[head % SESSION_RING_ITEMS].kind = kind;
  r->items[head % SESSION_RING_ITEMS].value = value;
  __atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
}

/* loop()'s side: 1 and the oldest item, or 0 when the ring is empty. */
static inline int session_ring_take(session_ring *r, session_seen *out) {
  if (r->tail == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE)) return 0;
  *out = r->items[r->tail % SESSION_RING_ITEMS];
  __atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
  return 1;
}

static inline void session_finish(session_finished_fn finished, void *ctx, int32_t handle, int32_t attempt,
                                  int32_t outcome) {
  tickretry_loop_result r;
  r.handle = handle;
  r.attempt = attempt;
  r.outcome = outcome;
  r.retry_after = 0;
  finished(ctx, &r);
}

#ifdef __cplusplus
}
#endif
#endif
