/* The setup form's broker settings and their checks, as the simulator has them
 * (host/tools/src/device/app/broker.ts): the broker URL, client id, user name,
 * password and topic an MQTT build connects and publishes with. A form with any bad field
 * stores nothing. Board-free, so test/boards/page-native.test.ts runs it beside the
 * simulator's checks on the same inputs. */
#ifndef APP_BROKER_H
#define APP_BROKER_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Longest accepted, in bytes: what app_broker_settings holds, less the NUL. */
#define APP_BROKER_URL_MAX 127
#define APP_BROKER_NAME_MAX 63 /* client id, user name, password */
#define APP_BROKER_TOPIC_MAX 95
#define APP_BROKER_DEFAULT_TOPIC "tickretry/readings"

/* What the setup page stores for the broker (NVS); the password is never shown. */
typedef struct app_broker_settings {
  char url[APP_BROKER_URL_MAX + 1], client_id[APP_BROKER_NAME_MAX + 1], username[APP_BROKER_NAME_MAX + 1],
      password[APP_BROKER_NAME_MAX + 1], topic[APP_BROKER_TOPIC_MAX + 1];
} app_broker_settings;

typedef enum app_broker_problem {
  APP_BROKER_OK = 0,
  APP_BROKER_URL,       /* neither empty nor mqtt:// or mqtts://, a host, an optional port */
  APP_BROKER_CLIENT_ID, /* longer than NAME_MAX, or not printable ASCII without spaces */
  APP_BROKER_USERNAME,  /* longer than NAME_MAX, or not printable ASCII */
  APP_BROKER_PASSWORD,  /* longer than NAME_MAX, or not printable ASCII */
  APP_BROKER_TOPIC      /* not 1 to TOPIC_MAX printable ASCII characters, a wildcard, or a leading $ */
} app_broker_problem;

typedef struct app_broker_form {
  const char *url, *client_id, *username, *password, *topic;
  size_t url_len, client_id_len, username_len, password_len, topic_len; /* fields may hold NUL bytes */
} app_broker_form;

/* The first problem of the form. */
app_broker_problem app_broker_check(const app_broker_form *form);
/* The form field a problem is about ("brokerUrl", ...), and what to tell people. */
const char *app_broker_field(app_broker_problem problem);
const char *app_broker_meaning(app_broker_problem problem);

/* 1 when `given` names the broker `stored` names: the same scheme, host (in any case) and
 * port (1883 for mqtt://, 8883 for mqtts:// when none is written); "" names the broker the
 * device started with. A stored broker password goes on only to the same broker: otherwise
 * it is cleared unless the form carries one again (the simulator's checkBroker). */
int app_broker_same_broker(const char *stored, size_t stored_len, const char *given, size_t given_len);
/* What the page shows beside the password field when it was cleared (the simulator's
 * BROKER_PASSWORD_CLEARED, word for word). */
const char *app_broker_password_cleared(void);

#ifdef __cplusplus
}
#endif
#endif
