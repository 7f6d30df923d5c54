/* The application's supervised connections, as the module's sessions: the Wi-Fi station
 * always (wifi_session.c), and in an MQTT build the broker connection (mqtt_session.c).
 * Each is one operation under a policy of its own, run through the same tickretry loop as
 * the uploads: poll hands out its connect attempt, the board starts it (WiFi.begin, the
 * HAL's mqtt_start), and its answer comes back through collect, a lost connection through
 * `dropped`, the link's return through `link_up`: the rings are drained, and the module
 * told, only inside a pass. This room owns the sessions' state, what the page shows of
 * them, and the answers waiting for collect (the MQTT uploads' among them). */
#ifndef APP_SESSIONS_H
#define APP_SESSIONS_H
#include <stdint.h>

#include "app_hal.h"
#include "mqtt_session.h"
#include "status.h"
#include "tickretry_loop.h"
#include "wifi_session.h"
#ifdef __cplusplus
extern "C" {
#endif

#define APP_WIFI_POLICY 1
#define APP_BROKER_POLICY 2
#define APP_SESSION_COUNT 2
#define APP_SESSION_ANSWERS (2 * TICKRETRY_LIMIT_OPERATIONS)
#define APP_SESSION_DETAIL_BYTES 160

/* The sessions' handles, kept beside the image (kept.h's app_kept): 0 for none. */
typedef struct app_session_handles {
  int32_t wifi, broker;
} app_session_handles;

/* What a session shows beyond the module's queries: its connect attempts this boot, and
 * once it ended (the loop released it) why. */
typedef struct app_session_view {
  const char *name;
  int32_t handle, operation_id;
  uint32_t attempts;
  int32_t end_reason, last_outcome;
  char detail[APP_SESSION_DETAIL_BYTES];
} app_session_view;

typedef struct app_sessions {
  const app_hal *hal;
  wifi_session wifi;
  app_session_view wifi_view;
  mqtt_session broker;
  app_session_view broker_view;
  /* Answers in the order they came, for collect: the sessions' and the MQTT uploads'.
   * Loop task only (the event tasks only queue), so plain indices do. */
  tickretry_loop_result answers[APP_SESSION_ANSWERS];
  uint32_t answers_in, answers_out;
} app_sessions;

/* What the board does for a connect attempt poll handed out. */
typedef enum app_session_start {
  APP_SESSION_NOT_ONE, /* not a session's handle: an upload's */
  APP_SESSION_STARTED, /* started (or answered at once) */
  APP_SESSION_WIFI_BEGIN /* the board calls WiFi.begin now */
} app_session_start;

void app_sessions_init(app_sessions *s, const app_hal *hal);
/* Sets the sessions' policies; after tickretry_init, before any begin. 1 when all took. */
int app_sessions_set_policies(void);
/* Takes a kept session back after a restore when the module still has it live, else
 * begins one under `policy`; its handle (0: none) into `view`. */
int32_t app_sessions_begin(app_sessions *s, tickretry_loop *loop, app_session_view *view, int32_t kept,
                           uint32_t policy, uint32_t now);
/* The Wi-Fi session `handle` (0: none), and the MQTT build's broker session (the HAL's client). */
void app_sessions_bind_wifi(app_sessions *s, int32_t handle);
void app_sessions_bind_broker(app_sessions *s, int32_t handle);
/* The HAL's start_attempt for a session's connect attempt. */
app_session_start app_sessions_start_attempt(app_sessions *s, int32_t handle, int32_t attempt);
/* WiFi.begin refused the attempt. */
void app_sessions_wifi_begin_failed(app_sessions *s);
/* The MQTT build's upload attempt: a QoS 1 publish of `payload` on `topic`. */
void app_sessions_publish(app_sessions *s, int32_t handle, int32_t attempt, const char *topic, const char *payload);
/* The HAL's collect, before the uploads': applies what the event tasks queued, then takes
 * one session answer, or an MQTT upload's. */
int app_sessions_collect(app_sessions *s, tickretry_loop_result *out);
/* The HAL's `dropped` and `link_up`. */
int app_sessions_dropped(app_sessions *s, int32_t *handle);
int app_sessions_link_up(app_sessions *s);
/* The tickretry loop's events: a timed-out attempt is forgotten (and abandoned), and a
 * session's end kept for the page. */
void app_sessions_see(app_sessions *s, tickretry_loop *loop, const tickretry_loop_event *event);
int app_sessions_wifi_up(const app_sessions *s);
int app_sessions_broker_up(const app_sessions *s);
/* From the pass, in an MQTT build: a broker session the broker refused begins again once its
 * hold is over (mqtt_session.h); its new handle, or 0 while it is held or none ended. */
int32_t app_sessions_broker_resume(app_sessions *s, tickretry_loop *loop, uint32_t now);
/* 1 while a refused broker session is held: no upload can begin. */
int app_sessions_broker_held(const app_sessions *s);
/* The sessions as the status shows them, into `out` (APP_SESSION_COUNT long); how many. */
uint32_t app_sessions_status(const app_sessions *s, status_session *out, uint32_t now);

#ifdef __cplusplus
}
#endif
#endif
