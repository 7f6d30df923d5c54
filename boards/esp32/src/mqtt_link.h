/* The MQTT build's broker client over esp-mqtt: the HAL's mqtt_* entries and the event
 * handler that turns esp-mqtt's events into what the broker session saw
 * (boards/app/mqtt_session.h). Built only with the build flag UPLOAD_MQTT. */
#ifndef MQTT_LINK_H
#define MQTT_LINK_H

#include "mqtt_client.h"
#include "mqtt_session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The client the HAL's entries call (made with disable_auto_reconnect). */
void mqtt_link_bind(esp_mqtt_client_handle_t client);
int mqtt_link_start(void *ctx);
int mqtt_link_reconnect(void *ctx);
int mqtt_link_publish(void *ctx, const char *topic, const char *payload);
void mqtt_link_disconnect(void *ctx);
/* esp-mqtt's event handler, registered for MQTT_EVENT_ANY with the session as its
 * argument: runs on esp-mqtt's task, only queues. */
void mqtt_link_event(void *arg, esp_event_base_t base, int32_t id, void *data);

#ifdef __cplusplus
}
#endif
#endif
