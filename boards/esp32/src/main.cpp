// tickretry on an ESP32: every reading period (boards/app/config.json) the device uploads a JSON reading
// over HTTP (or, built with -DUPLOAD_MQTT=1, publishes it with QoS 1 over MQTT), retried
// by the scheduler module through boards/tickretry/tickretry_loop.c, with the operation id as
// Idempotency-Key (over MQTT: the payload's "op"). The Wi-Fi station, and over MQTT the
// broker connection, are sessions of the module (sketch_sessions.cpp): it decides every
// reconnect, and no retry waits in a delay(). The loop never blocks: the HTTP attempt runs
// in its own FreeRTOS task (http_upload.cpp), esp-mqtt runs in its own, and so does the setup
// page's server (page_server.cpp), whose asks the loop does between passes (page_loop.cpp).
// The scheduler's image is kept in RTC memory and NVS, so uploads go on after a deep sleep
// (DEEP_SLEEP=1 sleeps whenever nothing is in flight) or a reset.
// Without saved Wi-Fi credentials the board opens an access point with the setup page at
// http://192.168.4.1/ (access_point.cpp). The application is board-free, in ../app, one
// room per owner of state (kept, readings, status, requests, settings, password, broker,
// sessions, page) over the HAL of board_hal.cpp; this file composes the rooms. Reads top
// to bottom: configuration, the rooms, the tickretry loop's HAL, the scheduler's start,
// setup(), loop().
#include <Arduino.h>
#include <WiFi.h>
#include <esp_system.h>
#if __has_include(<esp_mac.h>)  // ESP-IDF 5 moved these out of esp_system.h
#include <esp_mac.h>
#include <esp_random.h>
#endif

#include "access_point.h"
#include "board_hal.h"
#include "broker.h"
#include "generated/app_config.h"
#include "http_upload.h"
#include "idle_sleep.h"
#include "kept.h"
#include "page_loop.h"
#include "page_server.h"
#include "readings.h"
#include "requests.h"
#include "sketch_sessions.h"
#include "status.h"
#include "tickretry.h"
#include "tickretry_loop.h"
#include "tickretry_ticks.h"
#include "tickretry_trace.h"
#include "watchdog.h"
#if TICKRETRY_BACKEND_WASM3
#include <wasm3.h>
#endif

// ---- Configuration -------------------------------------------------------------------

// The upload policy, the budget and the reading period are the readings room's
// (../app/readings.c); the session policies sketch_sessions.cpp's.
#define DEFAULT_UPLOAD_URL "http://192.168.1.10:8080/upload"
// The longest the main loop waits between passes: how late an answer or a page request
// may be noticed (boards/app/config.json's loop, the simulator's too).
#define PASS_MAX_WAIT_MS APP_LOOP_PASS_MAX_WAIT_MS
// Deep sleep while nothing is in flight, until the next due time or reading (the rule is
// ../app/idle_sleep.h's); off by default (-DDEEP_SLEEP=1), since the setup page is
// unreachable while the board sleeps.
#ifndef DEEP_SLEEP
#define DEEP_SLEEP 0
#endif

// wasm3 interprets on the loop task's stack (the module's calls are shallow, but wasm3
// compiles each function on its first call, which wants a few KiB more than the default).
SET_LOOP_TASK_STACK_SIZE(16 * 1024);

// ---- The rooms --------------------------------------------------------------------------

static char upload_url[160];
static app_broker_settings broker_settings;
static char device_id[13];
static bool scheduler_ok;
RTC_DATA_ATTR static uint32_t boots;  // a deep sleep keeps it, a reset does not
static tickretry_loop uploads;
static app_keeper keeper;
static app_readings readings;
static app_status_book book;
static app_requests requests;

// ---- The tickretry loop's HAL ----------------------------------------------------------

static uint32_t hal_ticks(void *) { return millis(); }

#if UPLOAD_MQTT
static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t, uint32_t) {
  if (!sessions_start_attempt(handle, attempt)) sessions_publish(handle, attempt, app_readings_body(&readings, handle));
}

static int hal_collect(void *, uint32_t, tickretry_loop_result *out) {
  if (!sessions_collect(out)) return 0;
  app_readings_mqtt_outcome(&readings, out->handle, out->outcome);
  return 1;
}
#else
static void hal_start_attempt(void *, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t) {
  if (sessions_start_attempt(handle, attempt)) return;
  app_http_attempt request;
  app_readings_http_attempt(&readings, handle, attempt, operation_id, &request);
  board_hal.http_start(board_hal.ctx, &request);
}

static int hal_collect(void *, uint32_t, tickretry_loop_result *out) {
  return sessions_collect(out) || app_readings_http_collect(&readings, out);
}
#endif

// Inside the pass, after it released what ended: a full table frees a slot first, and
// the upload's first attempt leaves in this pass, after persist. A reading due is taken
// into the kept queue; queued readings begin while a slot is free, and over MQTT only while
// the broker session is UP (the gate of docs/device.md): while it is down, or held after the
// broker refused the device's login (for an hour), they wait in the queue, spending no
// attempt and no budget, and a full queue drops its oldest, counted.
static void hal_begin_due(void *, [[maybe_unused]] tickretry_loop *loop, uint32_t now) {
  int may_begin = 1;
#if UPLOAD_MQTT
  sessions_broker_held(loop, now);  // a held session begins again once its hold is over
  may_begin = sessions_broker_up();
#endif
  app_readings_begin_due(&readings, now, app_requests_take_upload(&requests), may_begin);
}

// After the pass's reports: a session that lost its connection, and the link's return
// (GOT_IP, CONNACK); the loop drops and kicks.
static int hal_dropped(void *, uint32_t, int32_t *handle) { return sessions_dropped(handle); }
static int hal_link_up(void *, uint32_t) { return sessions_link_up(); }

// Before any attempt of the pass leaves (the persist-before-send rule).
static void hal_persist(void *, uint32_t now) { app_keeper_keep(&keeper, &uploads, 0, now); }

static void hal_serve(void *) { page_loop_serve(); }

static void hal_on_event(void *, const tickretry_loop_event *event) {
  static char line[96];
  tickretry_loop_event_format(event, line, sizeof line);
  Serial.println(line);
  sessions_see(&uploads, event);
  app_readings_see(&readings, event);
}

static const tickretry_loop_hal hal = {
    .ctx = nullptr,
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

// ---- The scheduler's start ------------------------------------------------------------

static void start_afresh() {
  app_keeper_forget(&keeper);
  app_readings_due_in(&readings, millis(), 0);
  // A per-device, per-boot seed: the hardware RNG (true random while the radio is on)
  // mixed with the MAC, so two devices never start from the same operation ids.
  uint8_t mac[6];
  esp_read_mac(mac, ESP_MAC_WIFI_STA);
  uint32_t seed_lo = esp_random() ^ (uint32_t(mac[0]) << 8 | mac[1]);
  uint32_t seed_hi = esp_random() ^ (uint32_t(mac[2]) << 24 | uint32_t(mac[3]) << 16 | mac[4] << 8 | mac[5]);
  tickretry_init(seed_lo, seed_hi);
  tickretry_set_policy(APP_UPLOAD_POLICY, app_upload_policy);
  if (!sessions_set_policies()) Serial.println("a session policy was refused: no Wi-Fi session");
  tickretry_set_budget(app_retry_budget);
  tickretry_loop_init(&uploads, &hal);
  Serial.printf("scheduler ready, worst case per upload %ld ms\n", long(tickretry_worst_case(APP_UPLOAD_POLICY)));
}

// The kept state when there is one the module takes, else afresh; then the sessions in
// the image, or new ones (the station's first connect is due at once). Also after a
// module swap with no state to carry, and after an uploaded module failed.
static void start_scheduler() {
  // open is a no-op when a module is already open (the one a module swap just loaded).
  scheduler_ok = tickretry_open() == TICKRETRY_RESULT_OK;
  if (!scheduler_ok) {
    Serial.println(tickretry_error());
    return;
  }
  uint32_t now = millis(), next_reading_in;
  if (app_keeper_resume(&keeper, &uploads, &hal, now, &next_reading_in)) {
    app_readings_due_in(&readings, now, next_reading_in);
  } else {
    start_afresh();
  }
  char ssid[33], pass[64];
  board_hal.nvs_get_string(board_hal.ctx, "ssid", "", ssid, sizeof ssid);
  board_hal.nvs_get_string(board_hal.ctx, "pass", "", pass, sizeof pass);
  sessions_start(&uploads, &keeper.kept->sessions, ssid, pass, &broker_settings, millis());
}

// The broker settings of the setup page (NVS), for the MQTT build's session.
static void load_broker_settings(app_broker_settings *b) {
  const app_hal &h = board_hal;
  h.nvs_get_string(h.ctx, "mqurl", "", b->url, sizeof b->url);
  h.nvs_get_string(h.ctx, "mqid", "", b->client_id, sizeof b->client_id);
  h.nvs_get_string(h.ctx, "mquser", "", b->username, sizeof b->username);
  h.nvs_get_string(h.ctx, "mqpass", "", b->password, sizeof b->password);
  h.nvs_get_string(h.ctx, "mqtopic", APP_BROKER_DEFAULT_TOPIC, b->topic, sizeof b->topic);
}

static uint32_t boot_count() { return boots; }

// ---- setup() and loop() ---------------------------------------------------------------

void setup() {
  Serial.begin(115200);
  boots++;
  bool by_watchdog = watchdog_begin();
  // NVS, and this boot's epoch in it before anything else (kept.h). Without NVS the board
  // claims nothing: a corrupt or missing partition must not read as "no device password yet".
  bool nvs_ok = board_nvs_open();
  if (!nvs_ok) Serial.println("NVS would not open: the page refuses every change and no upload begins");
  app_keeper_init(&keeper, &board_hal, nvs_ok);
  board_hal.nvs_get_string(board_hal.ctx, "url", DEFAULT_UPLOAD_URL, upload_url, sizeof upload_url);
  load_broker_settings(&broker_settings);

  uint8_t mac[6];
  esp_read_mac(mac, ESP_MAC_WIFI_STA);
  snprintf(device_id, sizeof device_id, "%02x%02x%02x%02x%02x%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
           mac[5]);
  access_point_boot(nvs_ok, device_id);
#if !UPLOAD_MQTT
  http_upload_begin(upload_url);
#endif

#if TICKRETRY_BACKEND_WASM3
  Serial.println("backend: wasm3 " M3_VERSION);
#else
  Serial.println("backend: wasm2c");
#endif
  const char *rolled_back = page_loop_begin(
      {&keeper, &readings, &book, &requests, &broker_settings, upload_url, device_id, &scheduler_ok, start_scheduler,
       boot_count},
      by_watchdog);
  if (!page_server_begin()) Serial.println("the setup page's server would not start");

  app_readings_init(&readings, &board_hal, &keeper, &book, &uploads, device_id);
  start_scheduler();  // after WiFi.mode(): esp_random() is truly random once the radio runs
  if (rolled_back) keeper.boot_kind = rolled_back;  // the page's power card says so
  bool woke = strcmp(keeper.boot_kind, "deep sleep") == 0;
  app_status_boot(&book, millis(), board_hal.wall_ms(board_hal.ctx), woke, keeper.boot_elapsed_ms);
}

// Saves the image into RTC memory, now, so that the wake restores it `sleep_ms` later,
// and sleeps (kept.h).
static void deep_sleep_for(uint32_t sleep_ms) {
  int32_t until_reading = tickretry_ticks_until(millis(), readings.next_at);
  app_keeper_before_sleep(&keeper, &uploads, millis(), sleep_ms, until_reading > 0 ? uint32_t(until_reading) : 0);
  board_hal.deep_sleep(board_hal.ctx, sleep_ms);
}

#if DEEP_SLEEP
// Not while the station is down or the page asked for a reboot (idle_sleep.h says when).
static void sleep_if_idle(uint32_t due) {
  if (!scheduler_ok || WiFi.getMode() != WIFI_STA || requests.restart) return;
  uint32_t sleep_ms = app_idle_sleep_ms(&uploads, due, millis(), readings.next_at, APP_SLEEP_MAX_MS);
  if (sleep_ms > 0) deep_sleep_for(sleep_ms);
}
#endif

void loop() {
  watchdog_feed();
  page_loop_swap();
  uint32_t due = 0;
  app_status_pass(&book, millis());
  if (scheduler_ok) {
    due = tickretry_loop_pass(&uploads);  // applies what the event tasks queued and the page asked
    if (tickretry_loop_fault(&uploads) != 0) {
      scheduler_ok = false;
      Serial.println(tickretry_error() ? tickretry_error() : "scheduler stopped");
      page_loop_module_failed();
    }
  } else {
    page_loop_serve();
  }
  access_point_watch();
  // What the page asked for, after its answer has left.
  app_power_request power = app_requests_power_due(&requests, millis());
  if (power == APP_POWER_RESTART) board_hal.restart(board_hal.ctx);
  if (power == APP_POWER_SLEEP) deep_sleep_for(requests.sleep_ms);
#if DEEP_SLEEP
  sleep_if_idle(due);
#endif
  // Until the module has work, but never long: answers, readings and the page come
  // sooner than next_due knows (it says IDLE, about 49 days, when nothing is live).
  // delay() yields this task to the upload task and Wi-Fi; no retry waits in it.
  delay(tickretry_loop_sleep(due, PASS_MAX_WAIT_MS));
}
