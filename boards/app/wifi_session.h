/* The sketch's Wi-Fi station, supervised by the module as a session (the Wi-Fi policy of
 * sessions.c): each connect attempt is one non-blocking WiFi.begin, and Arduino's Wi-Fi
 * events, which arrive on the core's event task, are queued (session_events.h) and
 * applied by wifi_session_apply from the HAL's collect inside a pass:
 *   GOT_IP           the connect attempt's SUCCESS: the session is UP, then the link is
 *                    back (the loop's linkUp), so the broker session and the uploads that
 *                    wait on the link fall due within their spread window instead of at
 *                    the end of their backoff;
 *   DISCONNECTED     a drop when UP; the connect attempt in flight TRANSIENT (its reason
 *   LOST_IP          kept for the page); a retry waits out the module's backoff.
 * The core's own reconnect is off (WiFi.setAutoReconnect(false)): the module alone decides
 * when to try again. Board-free: test/boards/mqtt-session.test.ts runs it against the real
 * module beside mqtt_session.c. */
#ifndef WIFI_SESSION_H
#define WIFI_SESSION_H

#include <stdint.h>

#include "session_events.h"
#include "tickretry.h"

#ifdef __cplusplus
extern "C" {
#endif

enum wifi_seen_kind { WIFI_SEEN_GOT_IP, WIFI_SEEN_DISCONNECTED, WIFI_SEEN_LOST_IP };

typedef struct wifi_session {
  int32_t handle;          /* the Wi-Fi session's handle */
  int32_t connect_attempt; /* the connect attempt in flight; 0: none */
  uint8_t up;              /* the station has its IP */
  uint8_t last_reason;     /* the last disconnect's reason (wifi_err_reason_t); 0: none */
  uint32_t drops, reconnects;
  uint32_t failed_in_row;  /* connect attempts that got no IP since the last UP */
  session_news news;       /* a drop and a GOT_IP, for the HAL's `dropped` and `link_up` */
  session_ring ring;
} wifi_session;

void wifi_session_init(wifi_session *s, int32_t handle);

/* The Wi-Fi event handler's side: runs on the event task, only queues. */
void wifi_session_seen(wifi_session *s, enum wifi_seen_kind kind, uint8_t reason);

/* poll handed out connect attempt `attempt`: 1 when the board is to call WiFi.begin now,
 * 0 when the station has its IP already (the attempt succeeded at once). */
int wifi_session_connect(wifi_session *s, int32_t attempt, session_finished_fn finished, void *ctx);

/* WiFi.begin refused the attempt: it finishes TRANSIENT at once. */
void wifi_session_begin_failed(wifi_session *s, session_finished_fn finished, void *ctx);

/* The module timed out attempt `attempt` (no IP in time): forgets it and counts it
 * failed. 1 when it was the attempt in flight (the board abandons it), else 0. */
int wifi_session_forget(wifi_session *s, int32_t attempt);

/* From the HAL's collect: applies everything the handler queued since the last call. */
void wifi_session_apply(wifi_session *s, session_finished_fn finished, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
