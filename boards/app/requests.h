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

typedef enum app_form_ask_kind { APP_FORM_ASK_NONE, APP_FORM_ASK_SETTINGS, APP_FORM_ASK_PASSWORD } app_form_ask_kind;

/* A form's ask that wants an answer, as the simulator's (host/tools/src/device/app/requests.ts):
 * the page posts it and waits; the loop carries it out between passes (asks.c) and answers.
 * The host-run firmware's page posts these; the board's page server hands its asks over
 * in the app_ask slot below and stores them in page_loop.cpp. */
typedef struct app_form_ask {
  app_form_ask_kind kind; /* what waits for the loop; NONE once it answered */
  app_settings_ask settings;
  char password_hash[APP_PASSWORD_STORED_MAX]; /* the page hashed it: PBKDF2 takes its time, not the loop's */
  uint8_t first_setup;                         /* a first setup finds no password set, or changes nothing */
  int answer_status;                           /* 0 until answered */
  const char *answer;                          /* the contract's message (generated/page_routes.h) */
  const char *answer_field;                    /* a refused setting's field ("ssid" ...), else NULL */
} app_form_ask;

typedef struct app_requests {
  uint8_t upload;    /* "Upload now": the next pass's begin_due begins one */
  uint8_t restart;   /* a reboot (also after new settings) */
  uint32_t sleep_ms; /* a deep sleep of this long; 0: none */
  uint8_t power_seen; /* a pass saw the reboot or the sleep: power_at holds when it falls due */
  uint32_t power_at;
  app_form_ask form; /* one at a time: a board's page serves one request at a time */
} app_requests;

void app_requests_upload(app_requests *r);
/* 1 once for each upload asked for. */
int app_requests_take_upload(app_requests *r);
void app_requests_ask_restart(app_requests *r);
void app_requests_ask_sleep(app_requests *r, uint32_t sleep_ms);
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

/* One ask of the page on its way to the loop. A board whose page server runs its handlers
 * in a task of its own (boards/esp32/src/page_server.cpp) keeps them off the module, the
 * store and the clock: a handler posts an ask here and waits; the loop takes it between
 * passes, does it and answers; the handler sends that answer. The server runs one handler
 * at a time, so one slot serves. The board holds its lock around every call below. */
typedef enum app_ask_kind {
  APP_ASK_STATUS,     /* the status JSON into `data` (`size` bytes), events after `number` */
  APP_ASK_UPLOAD,     /* "Upload now" */
  APP_ASK_LOOP_RESET, /* the loop's maxima */
  APP_ASK_RESTART,    /* a reboot */
  APP_ASK_SLEEP,      /* a deep sleep of `number` ms */
  APP_ASK_PASSWORD,   /* store `data`, a device password's stored form; `number` 1: the first */
  APP_ASK_SETTINGS,   /* store `data`, the board's checked settings */
  APP_ASK_MODULE      /* swap in `data`, a checked module of `size` bytes: the loop's once taken */
} app_ask_kind;

typedef enum app_ask_state { APP_ASK_EMPTY, APP_ASK_POSTED, APP_ASK_TAKEN, APP_ASK_ANSWERED } app_ask_state;

#define APP_ASK_TEXT_BYTES 256

typedef struct app_ask {
  app_ask_state state;
  app_ask_kind kind;
  uint32_t number;
  void *data; /* the asker's, which waits while the loop has it */
  size_t size;
  int status; /* the answer: an HTTP status and its message */
  char text[APP_ASK_TEXT_BYTES];
} app_ask;

/* The asker: 1 once posted, 0 while the slot holds another ask. */
int app_ask_post(app_ask *slot, app_ask_kind kind, uint32_t number, void *data, size_t size);
/* The loop: 1 and the posted ask into `out`, the slot's now TAKEN; 0 when none is posted. */
int app_ask_take(app_ask *slot, app_ask *out);
/* The loop, once it did the ask taken. */
void app_ask_answer(app_ask *slot, int status, const char *text);
/* The asker: 1 and the answer once there is one (the slot is free again), else 0. */
int app_ask_answered(app_ask *slot, int *status, char *text, size_t size);
/* The asker gave up waiting: 1 when the loop had not taken the ask (nothing was done and
 * the slot is free), 0 when it has it (its answer comes). */
int app_ask_withdraw(app_ask *slot);

#ifdef __cplusplus
}
#endif
#endif
