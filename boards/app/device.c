/* See device.h. Reads top to bottom: the tickretry loop's HAL, the scheduler's start, the
 * boot, the pass and the sleeps. */
#include "device.h"

#include <string.h>

#include "generated/app_config.h"
#include "idle_sleep.h"
#include "tickretry.h"
#include "tickretry_ticks.h"
#include "tickretry_trace.h"

#define OBSERVED(d, what) ((d)->observer && (d)->observer->what)

/* ---- The tickretry loop's HAL ------------------------------------------------------- */

static uint32_t now_of(const app_device *d) { return d->hal->ticks(d->hal->ctx); }

static uint32_t hal_ticks(void *ctx) { return now_of((const app_device *)ctx); }

/* A session's connect attempt (WiFi.begin through the HAL), else an upload's. */
static void hal_start_attempt(void *ctx, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t now) {
  app_device *d = (app_device *)ctx;
  (void)now;
  app_session_start started = app_sessions_start_attempt(&d->sessions, handle, attempt);
  if (started == APP_SESSION_WIFI_BEGIN && !d->hal->wifi_begin(d->hal->ctx, d->ssid, d->pass))
    app_sessions_wifi_begin_failed(&d->sessions);
  if (started != APP_SESSION_NOT_ONE) return;
#if UPLOAD_MQTT
  (void)operation_id;
  const char *body = app_readings_body(&d->readings, handle);
  app_sessions_publish(&d->sessions, handle, attempt, d->broker_settings.topic, body);
#else
  app_http_attempt request;
  app_readings_http_attempt(&d->readings, handle, attempt, operation_id, &request);
  d->hal->http_start(d->hal->ctx, &request);
#endif
}

/* The sessions' answers first (over MQTT the uploads' among them), then the uploads'. */
static int hal_collect(void *ctx, uint32_t now, tickretry_loop_result *out) {
  app_device *d = (app_device *)ctx;
  (void)now;
  int took = app_sessions_collect(&d->sessions, out);
#if UPLOAD_MQTT
  if (took) app_readings_mqtt_outcome(&d->readings, out->handle, out->outcome);
#else
  took = took || app_readings_http_collect(&d->readings, out);
#endif
  if (took && OBSERVED(d, answered)) d->observer->answered(d->observer->ctx); /* stored, not reported yet */
  return took;
}

/* Inside the pass, after it released what ended: a full table frees a slot first, and
 * the upload's first attempt leaves in this pass, after persist. A reading due is taken
 * into the kept queue; queued readings begin while a slot is free, and over MQTT only while
 * the broker session is UP (the gate of docs/device.md): while it is down, or held after the
 * broker refused the device's login (for an hour), they wait in the queue, spending no
 * attempt and no budget, and a full queue drops its oldest, counted. */
static void hal_begin_due(void *ctx, tickretry_loop *loop, uint32_t now) {
  app_device *d = (app_device *)ctx;
  (void)loop;
  int may_begin = 1;
#if UPLOAD_MQTT
  int32_t resumed = app_sessions_broker_resume(&d->sessions, loop, now); /* once its hold is over */
  if (resumed > 0) d->keeper.kept->sessions.broker = resumed;
  may_begin = app_sessions_broker_up(&d->sessions);
#endif
  app_readings_begin_due(&d->readings, now, app_requests_take_upload(&d->requests), may_begin);
}

/* After the pass's reports: a session that lost its connection, and the link's return
 * (GOT_IP, CONNACK); the loop drops and kicks. */
static int hal_dropped(void *ctx, uint32_t now, int32_t *handle) {
  (void)now;
  return app_sessions_dropped(&((app_device *)ctx)->sessions, handle);
}

static int hal_link_up(void *ctx, uint32_t now) {
  (void)now;
  return app_sessions_link_up(&((app_device *)ctx)->sessions);
}

/* Before any attempt of the pass leaves (the persist-before-send rule). */
static void hal_persist(void *ctx, uint32_t now) {
  app_device *d = (app_device *)ctx;
  int writes = tickretry_changes() != d->keeper.changes || d->keeper.touched;
  if (OBSERVED(d, keeping)) d->observer->keeping(d->observer->ctx, writes);
  app_keeper_keep(&d->keeper, &d->uploads, 0, now);
  if (OBSERVED(d, kept)) d->observer->kept(d->observer->ctx, now, writes);
}

static void hal_serve(void *ctx) {
  app_device *d = (app_device *)ctx;
  if (d->serve) d->serve();
}

static void hal_on_event(void *ctx, const tickretry_loop_event *event) {
  app_device *d = (app_device *)ctx;
  char line[96];
  tickretry_loop_event_format(event, line, sizeof line);
  if (OBSERVED(d, event)) d->observer->event(d->observer->ctx, event, line);
  else app_say(d->hal, "%s\n", line);
  app_sessions_see(&d->sessions, &d->uploads, event);
  app_readings_see(&d->readings, event);
}

/* ---- The scheduler's start --------------------------------------------------------- */

void app_device_start_afresh(app_device *d) {
  app_keeper_forget(&d->keeper);
  app_readings_due_in(&d->readings, now_of(d), 0);
  uint32_t seed[2]; /* per device and boot, so that two never start from the same ids */
  d->hal->random_bytes(d->hal->ctx, seed, sizeof seed);
  tickretry_init(seed[0], seed[1]);
  tickretry_set_policy(APP_UPLOAD_POLICY, app_upload_policy);
  if (!app_sessions_set_policies()) app_say(d->hal, "a session policy was refused: no session\n");
  tickretry_set_budget(app_retry_budget);
  tickretry_loop_init(&d->uploads, &d->loop_hal);
  if (OBSERVED(d, afresh)) d->observer->afresh(d->observer->ctx);
  else
    app_say(d->hal, "scheduler ready, worst case per upload %ld ms\n", (long)tickretry_worst_case(APP_UPLOAD_POLICY));
}

/* The broker session of the settings, kept or new; none without a client for them. */
static void start_broker(app_device *d, app_session_handles *kept, uint32_t now) {
#if UPLOAD_MQTT
  app_sessions *s = &d->sessions;
  app_session_view *view = &s->broker_view;
  if (!d->hal->mqtt_bind(d->hal->ctx, &d->broker_settings, &s->broker, view->detail, sizeof view->detail)) {
    kept->broker = 0; /* the page says why; no uploads */
    return;
  }
  kept->broker = app_sessions_begin(s, &d->uploads, view, kept->broker, APP_BROKER_POLICY, now);
  app_sessions_bind_broker(s, kept->broker);
#else
  (void)d, (void)kept, (void)now;
#endif
}

/* The Wi-Fi station's session, where the application supervises one: without an SSID
 * there is no station, and so no session at all. */
static void start_sessions(app_device *d, uint32_t now) {
  app_session_handles *kept = &d->keeper.kept->sessions;
  if (d->hal->wifi_begin) {
    d->hal->nvs_get_string(d->hal->ctx, "ssid", "", d->ssid, sizeof d->ssid);
    d->hal->nvs_get_string(d->hal->ctx, "pass", "", d->pass, sizeof d->pass);
    if (d->ssid[0] == '\0') {
      kept->wifi = kept->broker = 0;
      return;
    }
    app_session_view *view = &d->sessions.wifi_view;
    kept->wifi = app_sessions_begin(&d->sessions, &d->uploads, view, kept->wifi, APP_WIFI_POLICY, now);
    app_sessions_bind_wifi(&d->sessions, kept->wifi);
  }
  start_broker(d, kept, now);
}

void app_device_start_scheduler(app_device *d) {
  /* open is a no-op when a module is already open (the one a module swap just loaded). */
  d->scheduler_ok = tickretry_open() == TICKRETRY_RESULT_OK;
  if (!d->scheduler_ok) {
    app_say(d->hal, "%s\n", tickretry_error());
    return;
  }
  uint32_t now = now_of(d), next_reading_in;
  if (app_keeper_resume(&d->keeper, &d->uploads, &d->loop_hal, now, &next_reading_in)) {
    app_readings_due_in(&d->readings, now, next_reading_in);
    if (OBSERVED(d, resumed)) d->observer->resumed(d->observer->ctx, next_reading_in);
  } else {
    app_device_start_afresh(d);
  }
  start_sessions(d, now_of(d));
}

/* ---- The boot ------------------------------------------------------------------------ */

/* The broker settings of the setup page (NVS), for the MQTT build's session. */
static void load_broker_settings(const app_hal *h, app_broker_settings *b) {
  h->nvs_get_string(h->ctx, "mqurl", "", b->url, sizeof b->url);
  h->nvs_get_string(h->ctx, "mqid", "", b->client_id, sizeof b->client_id);
  h->nvs_get_string(h->ctx, "mquser", "", b->username, sizeof b->username);
  h->nvs_get_string(h->ctx, "mqpass", "", b->password, sizeof b->password);
  h->nvs_get_string(h->ctx, "mqtopic", APP_BROKER_DEFAULT_TOPIC, b->topic, sizeof b->topic);
}

void app_device_begin(app_device *d, const app_hal *hal, const app_observer *observer, int nvs_ok,
                      const char *device_id) {
  d->hal = hal;
  d->observer = observer;
  d->device_id = device_id;
  d->loop_hal = (tickretry_loop_hal){
      .ctx = d,
      .ticks = hal_ticks,
      .collect = hal_collect,
      .sessions = &tickretry_loop_sessions,
      .dropped = hal_dropped,
      .link_up = hal_link_up,
      .begin_due = hal_begin_due,
      .persist = hal_persist,
      .start_attempt = hal_start_attempt,
      .on_event = hal_on_event,
      .serve = hal_serve,
  };
  memset(&d->requests, 0, sizeof d->requests);
  memset(&d->book, 0, sizeof d->book);
  app_keeper_init(&d->keeper, hal, nvs_ok);
  load_broker_settings(hal, &d->broker_settings);
  app_sessions_init(&d->sessions, hal);
}

void app_device_start(app_device *d, const char *rolled_back) {
  app_readings_init(&d->readings, d->hal, &d->keeper, &d->book, &d->uploads, d->device_id);
  if (d->observer) d->readings.noted = d->observer->noted, d->readings.noted_ctx = d->observer->ctx;
  app_device_start_scheduler(d);
  if (rolled_back) d->keeper.boot_kind = rolled_back; /* the page's power card says so */
  int woke = strcmp(d->keeper.boot_kind, "deep sleep") == 0;
  app_status_boot(&d->book, now_of(d), d->hal->wall_ms(d->hal->ctx), woke, d->keeper.boot_elapsed_ms);
}

/* ---- The pass and the sleeps -------------------------------------------------------- */

int app_device_swap_module(app_device *d, app_module_swap *swap, int *status, char *text, size_t size) {
  int afresh;
  if (!app_module_swap_in(swap, now_of(d), status, text, size, &afresh)) return 0;
  if (afresh) app_device_start_scheduler(d); /* no state to carry (the old engine had failed) */
  d->scheduler_ok = tickretry_error() == NULL;
  return 1;
}

uint32_t app_device_pass(app_device *d) {
  app_status_pass(&d->book, now_of(d));
  if (!d->scheduler_ok) {
    if (d->serve) d->serve();
    return 0;
  }
  uint32_t due = tickretry_loop_pass(&d->uploads); /* applies what the event tasks queued and the page asked */
  int32_t fault = tickretry_loop_fault(&d->uploads);
  if (fault == 0) return due;
  if (d->module_failed) d->module_failed(); /* restarts under a trial: no return */
  d->scheduler_ok = false;
  if (OBSERVED(d, fault)) d->observer->fault(d->observer->ctx, fault);
  else app_say(d->hal, "%s\n", tickretry_error() ? tickretry_error() : "scheduler stopped");
  return 0;
}

void app_device_deep_sleep(app_device *d, uint32_t sleep_ms) {
  uint32_t now = now_of(d);
  int32_t until_reading = tickretry_ticks_until(now, d->readings.next_at);
  app_keeper_before_sleep(&d->keeper, &d->uploads, now, sleep_ms, until_reading > 0 ? (uint32_t)until_reading : 0);
  if (OBSERVED(d, sleeping)) d->observer->sleeping(d->observer->ctx, sleep_ms, until_reading);
  d->hal->deep_sleep(d->hal->ctx, sleep_ms);
}

void app_device_after_pass(app_device *d, uint32_t due) {
  app_power_request power = app_requests_power_due(&d->requests, now_of(d));
  if (power == APP_POWER_RESTART) d->hal->restart(d->hal->ctx);
  if (power == APP_POWER_SLEEP) app_device_deep_sleep(d, d->requests.sleep_ms);
  /* Not while the access point is on or the page asked for a reboot (idle_sleep.h says when). */
  if (!d->scheduler_ok || d->sleep_max_ms == 0 || d->requests.restart || !d->hal->station_only(d->hal->ctx)) return;
  uint32_t sleep_ms = app_idle_sleep_ms(&d->uploads, due, now_of(d), d->readings.next_at, d->sleep_max_ms);
  if (sleep_ms > 0) app_device_deep_sleep(d, sleep_ms);
}
