/* Arduino's Wi-Fi events onto the module (wifi_session.h says which becomes what). */
#include "wifi_session.h"

#include <string.h>

void wifi_session_init(wifi_session *s, int32_t handle) {
  memset(s, 0, sizeof *s);
  s->handle = handle;
}

void wifi_session_seen(wifi_session *s, enum wifi_seen_kind kind, uint8_t reason) {
  session_ring_put(&s->ring, (uint8_t)kind, reason);
}

/* The connect attempt in flight ends with `outcome`. */
static void connect_ended(wifi_session *s, int32_t outcome, session_finished_fn finished, void *ctx) {
  if (s->connect_attempt == 0) return;
  session_finish(finished, ctx, s->handle, s->connect_attempt, outcome);
  s->connect_attempt = 0;
  s->failed_in_row = outcome == TICKRETRY_OUTCOME_SUCCESS ? 0 : s->failed_in_row + 1;
}

int wifi_session_connect(wifi_session *s, int32_t attempt, session_finished_fn finished, void *ctx) {
  s->connect_attempt = attempt;
  if (!s->up) return 1;
  connect_ended(s, TICKRETRY_OUTCOME_SUCCESS, finished, ctx); /* the IP came after a timed-out attempt */
  return 0;
}

void wifi_session_begin_failed(wifi_session *s, session_finished_fn finished, void *ctx) {
  connect_ended(s, TICKRETRY_OUTCOME_TRANSIENT, finished, ctx);
}

int wifi_session_forget(wifi_session *s, int32_t attempt) {
  if (s->connect_attempt == 0 || s->connect_attempt != attempt) return 0;
  s->connect_attempt = 0;
  s->failed_in_row++;
  return 1;
}

static void apply_one(wifi_session *s, const session_seen *seen, session_finished_fn finished, void *ctx) {
  if (seen->kind == WIFI_SEEN_GOT_IP) {
    if (s->up) return; /* a new address on a link already up */
    if (s->drops > 0) s->reconnects++;
    s->up = 1; /* with no attempt in flight (it timed out), the next one succeeds at once */
    connect_ended(s, TICKRETRY_OUTCOME_SUCCESS, finished, ctx);
    s->news.link_back = 1;
    return;
  }
  s->last_reason = (uint8_t)seen->value;
  connect_ended(s, TICKRETRY_OUTCOME_TRANSIENT, finished, ctx);
  if (!s->up) return;
  s->up = 0;
  s->drops++;
  s->news.dropped = 1;
}

void wifi_session_apply(wifi_session *s, session_finished_fn finished, void *ctx) {
  session_seen seen;
  while (session_ring_take(&s->ring, &seen)) apply_one(s, &seen, finished, ctx);
}
