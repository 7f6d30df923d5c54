/* See host_broker.h. The MQTT build's alone. */
#if UPLOAD_MQTT
#include "host_broker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PENDING 32
#define SERVER_KEYS 4096

typedef struct pending {
  uint32_t at;
  int kind; /* 0: free, else 1 + an mqtt_seen_kind */
  int32_t value;
  uint32_t connection; /* the connection it belongs to: a drop cancels its PUBACKs */
} pending;

static struct {
  host_broker_state state;
  int code;
  mqtt_session *session;
  int connected;
  uint32_t connection, now;
  int msg_id;
  pending out[PENDING];
} broker;
static struct {
  unsigned long epoch;
  long op;
} stored[SERVER_KEYS];
static int stored_count;

void host_broker_bind(mqtt_session *session) { broker.session = session; }

void host_broker_reset(void) {
  broker.connected = 0;
  broker.connection++;
  memset(broker.out, 0, sizeof broker.out);
}

static void later(enum mqtt_seen_kind kind, int32_t value) {
  int i = 0;
  while (i < PENDING && broker.out[i].kind) i++;
  if (i == PENDING) abort();
  broker.out[i] = (pending){broker.now + HOST_BROKER_ANSWER_MS, 1 + (int)kind, value, broker.connection};
}

static void seen(enum mqtt_seen_kind kind, int32_t value) {
  if (broker.session) mqtt_session_seen(broker.session, kind, value);
}

/* A connection up drops: the client's DISCONNECTED now, no PUBACK of it comes. */
static void drop(void) {
  if (!broker.connected) return;
  host_broker_reset();
  seen(MQTT_SEEN_DISCONNECTED, 0);
}

void host_broker_set(host_broker_state state, int code, uint32_t now) {
  broker.now = now;
  broker.state = state;
  broker.code = code;
  if (state != HOST_BROKER_UP) drop();
}

/* A connect's answer, as the broker is when it comes. */
static void connect_answer(void) {
  if (broker.state == HOST_BROKER_UP) {
    broker.connected = 1;
    seen(MQTT_SEEN_CONNECTED, 0);
  } else if (broker.state == HOST_BROKER_REFUSE) {
    seen(MQTT_SEEN_REFUSED, broker.code);
  } else {
    seen(MQTT_SEEN_TRANSPORT_ERROR, 0); /* connection refused */
  }
}

void host_broker_advance(uint32_t now) {
  broker.now = now;
  for (;;) {
    int best = -1;
    for (int i = 0; i < PENDING; i++)
      if (broker.out[i].kind && (int32_t)(now - broker.out[i].at) >= 0 && (best < 0 || broker.out[i].at < broker.out[best].at))
        best = i;
    if (best < 0) return;
    pending p = broker.out[best];
    broker.out[best].kind = 0;
    if (p.connection != broker.connection) continue;
    if (p.kind - 1 == MQTT_SEEN_CONNECTED) connect_answer();
    else seen((enum mqtt_seen_kind)(p.kind - 1), p.value);
  }
}

int host_broker_start(void *ctx) {
  (void)ctx;
  host_broker_reset(); /* a new handshake: whatever the client had is gone */
  later(MQTT_SEEN_CONNECTED, 0);
  return 0;
}

int host_broker_reconnect(void *ctx) { return host_broker_start(ctx); }

void host_broker_disconnect(void *ctx) {
  (void)ctx;
  host_broker_reset();
}

/* The broker's side of a publish that reached it: stored once per key. */
static void store(const char *payload) {
  const char *op = strstr(payload, "\"op\":"), *seq = strstr(payload, "\"reading\":"), *epoch = strstr(payload, "\"epoch\":");
  long o = op ? strtol(op + 5, NULL, 10) : 0;
  unsigned long s = seq ? strtoul(seq + 10, NULL, 10) : 0, e = epoch ? strtoul(epoch + 8, NULL, 10) : 0;
  for (int i = 0; i < stored_count; i++)
    if (stored[i].epoch == e && stored[i].op == o) {
      printf("%lu server duplicate key %lu:%ld seq %lu\n", (unsigned long)broker.now, e, o, s);
      return;
    }
  if (stored_count == SERVER_KEYS) abort();
  stored[stored_count].epoch = e, stored[stored_count++].op = o;
  printf("%lu server stored key %lu:%ld seq %lu\n", (unsigned long)broker.now, e, o, s);
}

int host_broker_publish(void *ctx, const char *topic, const char *payload) {
  (void)ctx;
  (void)topic;
  if (!broker.connected) return -1;
  store(payload);
  later(MQTT_SEEN_PUBLISHED, ++broker.msg_id);
  return broker.msg_id;
}
#endif
