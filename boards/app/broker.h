/* The setup form's broker settings and their checks, as the simulator has them
 * (host/tools/src/device/broker-settings.ts): the broker URL, client id, user name,
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
  APP_BROKER_TOPIC      /* not 1 to TOPIC_MAX printable ASCII characters, or a wildcard */
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

#ifdef __cplusplus
}
#endif
#endif
