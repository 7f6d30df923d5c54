/* A stand-in for esp-mqtt's mqtt_client.h: declarations only, the ones
 * boards/esp32/src/mqtt_link.c and sketch_sessions.cpp use, with the values of the real
 * enums, so those files compile here and mqtt_link.c runs against a fake client in
 * test/boards/mqtt_check.c. The client configuration comes in both layouts: IDF 4.4's flat
 * one (arduino-esp32 core 2.x) and IDF 5's nested one (core 3.x), chosen by
 * ESP_IDF_VERSION_MAJOR as in the real header. Taken from the API's documentation, not its
 * code. */
#ifndef MQTT_CLIENT_H
#define MQTT_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "esp_idf_version.h"

typedef int esp_err_t;
#define ESP_OK 0
#define ESP_FAIL -1

typedef const char *esp_event_base_t;
typedef void (*esp_event_handler_t)(void *event_handler_arg, esp_event_base_t event_base, int32_t event_id,
                                    void *event_data);

typedef struct esp_mqtt_client *esp_mqtt_client_handle_t;

typedef enum {
  MQTT_EVENT_ANY = -1,
  MQTT_EVENT_ERROR = 0,
  MQTT_EVENT_CONNECTED,
  MQTT_EVENT_DISCONNECTED,
  MQTT_EVENT_SUBSCRIBED,
  MQTT_EVENT_UNSUBSCRIBED,
  MQTT_EVENT_PUBLISHED,
  MQTT_EVENT_DATA,
  MQTT_EVENT_BEFORE_CONNECT,
  MQTT_EVENT_DELETED,
} esp_mqtt_event_id_t;

typedef enum {
  MQTT_CONNECTION_ACCEPTED = 0,
  MQTT_CONNECTION_REFUSE_PROTOCOL,
  MQTT_CONNECTION_REFUSE_ID_REJECTED,
  MQTT_CONNECTION_REFUSE_SERVER_UNAVAILABLE,
  MQTT_CONNECTION_REFUSE_BAD_USERNAME,
  MQTT_CONNECTION_REFUSE_NOT_AUTHORIZED
} esp_mqtt_connect_return_code_t;

typedef enum {
  MQTT_ERROR_TYPE_NONE = 0,
  MQTT_ERROR_TYPE_TCP_TRANSPORT,
  MQTT_ERROR_TYPE_CONNECTION_REFUSED,
} esp_mqtt_error_type_t;

typedef struct esp_mqtt_error_codes {
  esp_err_t esp_tls_last_esp_err;
  int esp_tls_stack_err;
  int esp_tls_cert_verify_flags;
  esp_mqtt_error_type_t error_type;
  esp_mqtt_connect_return_code_t connect_return_code;
  int esp_transport_sock_errno;
} esp_mqtt_error_codes_t;

typedef struct esp_mqtt_event_t {
  esp_mqtt_event_id_t event_id;
  esp_mqtt_client_handle_t client;
  void *user_context;
  char *data;
  int data_len;
  int total_data_len;
  int current_data_offset;
  char *topic;
  int topic_len;
  int msg_id;
  int session_present;
  esp_mqtt_error_codes_t *error_handle;
  bool retain;
  int qos;
  bool dup;
} esp_mqtt_event_t;
typedef esp_mqtt_event_t *esp_mqtt_event_handle_t;

#if ESP_IDF_VERSION_MAJOR >= 5
typedef struct {
  struct {
    struct {
      const char *uri;
    } address;
  } broker;
  struct {
    const char *username;
    const char *client_id;
    struct {
      const char *password;
    } authentication;
  } credentials;
  struct {
    int keepalive;
  } session;
  struct {
    int timeout_ms;
    bool disable_auto_reconnect;
  } network;
} esp_mqtt_client_config_t;
#else
typedef struct {
  const char *uri;
  const char *client_id;
  const char *username;
  const char *password;
  int keepalive;
  bool disable_auto_reconnect;
  int network_timeout_ms;
} esp_mqtt_client_config_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif
esp_mqtt_client_handle_t esp_mqtt_client_init(const esp_mqtt_client_config_t *config);
esp_err_t esp_mqtt_client_register_event(esp_mqtt_client_handle_t client, esp_mqtt_event_id_t event,
                                         esp_event_handler_t event_handler, void *event_handler_arg);
esp_err_t esp_mqtt_client_start(esp_mqtt_client_handle_t client);
esp_err_t esp_mqtt_client_reconnect(esp_mqtt_client_handle_t client);
esp_err_t esp_mqtt_client_disconnect(esp_mqtt_client_handle_t client);
int esp_mqtt_client_enqueue(esp_mqtt_client_handle_t client, const char *topic, const char *data, int len, int qos,
                            int retain, bool store);
#ifdef __cplusplus
}
#endif
#endif
