/* What the page asks of the loop that does not happen inside its answer: an upload now,
 * a reboot, a deep sleep. A handler posts the request and answers; the loop applies it
 * between passes, after the answer has left (never a delay() in a handler). */
#ifndef APP_REQUESTS_H
#define APP_REQUESTS_H
#include <stddef.h>
#include <stdint.h>

#include "broker.h"
#include "password.h"
#ifdef __cplusplus
extern "C" {
#endif

/* A reboot or a sleep begins APP_LOOP_POWER_AFTER_MS (boards/app/config.json) after the
 * first pass that sees it: its answer has left by then. The pass, not the handler, reads
 * the tick (a page handler never does). */

typedef enum app_power_request { APP_POWER_NONE, APP_POWER_RESTART, APP_POWER_SLEEP } app_power_request;

/* The setup form's fields as they came (they may hold NUL bytes, hence the lengths; one
 * byte longer than any accepted value, so a longer field is still refused), and the broker's
 * once the page checked them; the loop checks the rest (asks.c), as the simulator's pass. */
typedef struct app_settings_ask {
  char ssid[34];
  char pass[65];
  char url[160];
  size_t ssid_len, pass_len, url_len;
  app_broker_settings broker;
} app_settings_ask;

typedef enum app_ask_kind { APP_ASK_NONE, APP_ASK_SETTINGS, APP_ASK_PASSWORD } app_ask_kind;

/* An ask that wants an answer, as the simulator's (host/tools/src/device/app/requests.ts):
 * the page posts it and waits; the loop carries it out between passes (asks.c) and answers. */
typedef struct app_ask {
  app_ask_kind kind; /* what waits for the loop; NONE once it answered */
  app_settings_ask settings;
  char password_hash[APP_PASSWORD_STORED_MAX]; /* the page hashed it: PBKDF2 takes its time, not the loop's */
  uint8_t first_setup;                         /* a first setup finds no password set, or changes nothing */
  int answer_status;                           /* 0 until answered */
  const char *answer;                          /* the contract's message (generated/page_routes.h) */
  const char *answer_field;                    /* a refused setting's field ("ssid" ...), else NULL */
} app_ask;

typedef struct app_requests {
  uint8_t upload;    /* "Upload now": the next pass's begin_due begins one */
  uint8_t restart;   /* a reboot (also after new settings) */
  uint32_t sleep_ms; /* a deep sleep of this long; 0: none */
  uint8_t power_seen; /* a pass saw the reboot or the sleep: power_at holds when it falls due */
  uint32_t power_at;
  app_ask ask; /* one at a time: a board's page serves one request at a time */
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
/* The page's side of an ask: 0 while another waits for its answer. The fields are cut to
 * their buffers, which are longer than any value the loop accepts. */
int app_requests_ask_settings(app_requests *r, const char *ssid, size_t ssid_len, const char *pass, size_t pass_len,
                              const char *url, size_t url_len, const app_broker_settings *broker);
int app_requests_ask_password(app_requests *r, const char *hash, int first_setup);
/* 1 once the loop answered the ask: its status, message and refused field (or NULL). */
int app_requests_answered(app_requests *r, int *status, const char **message, const char **field);
/* The loop's side: what falls due at `now` (a reboot before a sleep); the first call that
 * sees a request sets when it falls due. */
app_power_request app_requests_power_due(app_requests *r, uint32_t now);

#ifdef __cplusplus
}
#endif
#endif
