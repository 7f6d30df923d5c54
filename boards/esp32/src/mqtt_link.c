/* See mqtt_link.h. */
#if UPLOAD_MQTT
#include "mqtt_link.h"

static esp_mqtt_client_handle_t client;

void mqtt_link_bind(esp_mqtt_client_handle_t bound) { client = bound; }

/* Without auto-reconnect esp-mqtt either waits for reconnect() (newer releases) or has
 * ended its task and wants start() again (IDF 4.4): the session tries the one, then the other. */
int mqtt_link_start(void *ctx) { return (void)ctx, esp_mqtt_client_start(client) == ESP_OK ? 0 : -1; }
int mqtt_link_reconnect(void *ctx) { return (void)ctx, esp_mqtt_client_reconnect(client) == ESP_OK ? 0 : -1; }

int mqtt_link_publish(void *ctx, const char *topic, const char *payload) {
  (void)ctx;
  return esp_mqtt_client_enqueue(client, topic, payload, 0, 1, 0, true);
}

void mqtt_link_disconnect(void *ctx) {
  (void)ctx;
  esp_mqtt_client_disconnect(client);
}

void mqtt_link_event(void *arg, esp_event_base_t base, int32_t id, void *data) {
  (void)base;
  mqtt_session *s = (mqtt_session *)arg;
  const esp_mqtt_event_t *e = (const esp_mqtt_event_t *)data;
  switch (id) {
    case MQTT_EVENT_CONNECTED:
      mqtt_session_seen(s, MQTT_SEEN_CONNECTED, 0);
      break;
    case MQTT_EVENT_DISCONNECTED:
      mqtt_session_seen(s, MQTT_SEEN_DISCONNECTED, 0);
      break;
    case MQTT_EVENT_PUBLISHED:
      mqtt_session_seen(s, MQTT_SEEN_PUBLISHED, e->msg_id);
      break;
    case MQTT_EVENT_ERROR:
      if (e->error_handle != NULL && e->error_handle->error_type == MQTT_ERROR_TYPE_CONNECTION_REFUSED)
        mqtt_session_seen(s, MQTT_SEEN_REFUSED, (int32_t)e->error_handle->connect_return_code);
      else
        mqtt_session_seen(s, MQTT_SEEN_TRANSPORT_ERROR, 0);
      break;
    default:
      break;
  }
}
#endif /* UPLOAD_MQTT */
