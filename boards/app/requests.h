/* What the page asks of the loop that does not happen inside its answer: an upload now,
 * a reboot, a deep sleep. A handler posts the request and answers; the loop applies it
 * between passes, after the answer has left (never a delay() in a handler). */
#ifndef APP_REQUESTS_H
#define APP_REQUESTS_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* A reboot or a sleep begins APP_LOOP_POWER_AFTER_MS (boards/app/config.json) after the
 * first pass that sees it: its answer has left by then. The pass, not the handler, reads
 * the tick (a page handler never does). */

typedef enum app_power_request { APP_POWER_NONE, APP_POWER_RESTART, APP_POWER_SLEEP } app_power_request;

typedef struct app_requests {
  uint8_t upload;    /* "Upload now": the next pass's begin_due begins one */
  uint8_t restart;   /* a reboot (also after new settings) */
  uint32_t sleep_ms; /* a deep sleep of this long; 0: none */
  uint8_t power_seen; /* a pass saw the reboot or the sleep: power_at holds when it falls due */
  uint32_t power_at;
} app_requests;

void app_requests_upload(app_requests *r);
/* 1 once for each upload asked for. */
int app_requests_take_upload(app_requests *r);
void app_requests_ask_restart(app_requests *r);
void app_requests_ask_sleep(app_requests *r, uint32_t sleep_ms);
/* TODO(issue 32): boards/esp32/src/page_server.cpp still passes its handler's tick; these
 * two go once it calls the ask_ forms. `now` is not used. */
void app_requests_restart(app_requests *r, uint32_t now);
void app_requests_sleep(app_requests *r, uint32_t sleep_ms, uint32_t now);
/* The loop's side: what falls due at `now` (a reboot before a sleep); the first call that
 * sees a request sets when it falls due. */
app_power_request app_requests_power_due(app_requests *r, uint32_t now);

#ifdef __cplusplus
}
#endif
#endif
