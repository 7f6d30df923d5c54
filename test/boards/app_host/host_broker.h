/* The MQTT build's broker on this machine: app_hal.h's mqtt_* entries over a scripted
 * broker, as boards/esp32/src/mqtt_link.c has them over esp-mqtt (its own reconnect off).
 * Every connect and every PUBACK comes HOST_BROKER_ANSWER_MS after it was asked, as esp-mqtt's
 * task would hand them to the session (mqtt_session_seen), in time order as the clock
 * passes them. The broker is up, down (a connect is refused: TRANSIENT; a connection up
 * drops at once, its publishes without a PUBACK) or refusing logins with a CONNACK code.
 * It stores each published body once per key (epoch and operation id, from the payload),
 * as the HTTP upstream does (host_hal.c). test/boards/app_sim/scripted-broker.ts is its
 * twin for the simulator. */
#ifndef HOST_BROKER_H
#define HOST_BROKER_H
#include <stdint.h>

#include "mqtt_session.h"

#define HOST_BROKER_ANSWER_MS 100u

/* "broker up|down|refuse CODE" (code 0 for up and down). */
typedef enum host_broker_state { HOST_BROKER_UP, HOST_BROKER_DOWN, HOST_BROKER_REFUSE } host_broker_state;
void host_broker_set(host_broker_state state, int code, uint32_t now);
/* The session the client's events go to (main.cpp registers mqtt_link_event with it). */
void host_broker_bind(mqtt_session *session);
/* The clock moved to `now`: every answer due by then is handed to the session. */
void host_broker_advance(uint32_t now);
/* A reset: the connection and everything in flight die with the board. */
void host_broker_reset(void);

int host_broker_start(void *ctx);
int host_broker_reconnect(void *ctx);
int host_broker_publish(void *ctx, const char *topic, const char *payload);
void host_broker_disconnect(void *ctx);
#endif
