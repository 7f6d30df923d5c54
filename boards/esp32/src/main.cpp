// tickretry on an ESP32: every reading period (boards/app/config.json) the device uploads a JSON reading
// over HTTP (or, built with -DUPLOAD_MQTT=1, publishes it with QoS 1 over MQTT), retried
// by the scheduler module through boards/tickretry/tickretry_loop.c, with the operation id as
// Idempotency-Key (over MQTT: the payload's "op"). The Wi-Fi station, and over MQTT the
// broker connection, are sessions of the module (../app/sessions.c; the board's calls in
// sketch_sessions.cpp): it decides every reconnect, and no retry waits in a delay(). The
// loop never blocks: the HTTP attempt runs in its own FreeRTOS task (http_upload.cpp),
// esp-mqtt runs in its own, and so does the setup page's server (page_server.cpp), whose
// asks the loop does between passes (page_loop.cpp).
// The scheduler's image is kept in RTC memory and NVS, so uploads go on after a deep sleep
// (DEEP_SLEEP=1 sleeps whenever nothing is in flight) or a reset.
// Without saved Wi-Fi credentials the board opens an access point with the setup page at
// http://192.168.4.1/ (access_point.cpp). The application is board-free, in ../app, one
// room per owner of state (kept, readings, status, requests, settings, password, broker,
// sessions, page), composed by ../app/device.c over the HAL of board_hal.cpp: the same
// composition the host-run firmware runs (test/boards/app_host). This file adds the board's
// own steps around it: the watchdog, the radio and the access point, the page's server and
// its asks between passes, the wait. Reads top to bottom: configuration, setup(), loop().
#include <Arduino.h>
#include <esp_system.h>
#if __has_include(<esp_mac.h>)  // ESP-IDF 5 moved it out of esp_system.h
#include <esp_mac.h>
#endif

#include "access_point.h"
#include "board_hal.h"
#include "device.h"
#include "generated/app_config.h"
#include "http_upload.h"
#include "idle_sleep.h"
#include "page_loop.h"
#include "page_server.h"
#include "sketch_sessions.h"
#include "tickretry_loop.h"
#include "watchdog.h"
#if TICKRETRY_BACKEND_WASM3
#include <wasm3.h>
#endif

// ---- Configuration -------------------------------------------------------------------

// The upload policy, the budget and the reading period are the readings room's
// (../app/readings.c); the session policies the sessions room's.
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

static app_device device;  // the application: its rooms, the loop, the scheduler
static char upload_url[160];
static char device_id[13];
RTC_DATA_ATTR static uint32_t boots;  // a deep sleep keeps it, a reset does not

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
  uint8_t mac[6];
  esp_read_mac(mac, ESP_MAC_WIFI_STA);
  snprintf(device_id, sizeof device_id, "%02x%02x%02x%02x%02x%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
           mac[5]);
  app_device_begin(&device, &board_hal, nullptr, nvs_ok, device_id);
  device.serve = page_loop_serve;
  device.module_failed = page_loop_module_failed;
  device.sleep_max_ms = DEEP_SLEEP ? APP_SLEEP_MAX_MS : 0;
  sessions_attach(&device.sessions);
  board_hal.nvs_get_string(board_hal.ctx, "url", DEFAULT_UPLOAD_URL, upload_url, sizeof upload_url);

  access_point_boot(nvs_ok, device_id);
#if !UPLOAD_MQTT
  http_upload_begin(upload_url);
#endif

#if TICKRETRY_BACKEND_WASM3
  Serial.println("backend: wasm3 " M3_VERSION);
#else
  Serial.println("backend: wasm2c");
#endif
  const char *rolled_back = page_loop_begin({&device.keeper, &device.readings, &device.book, &device.requests,
                                             &device.broker_settings, upload_url, device_id, &device.scheduler_ok,
                                             &device, boot_count},
                                            by_watchdog);
  if (!page_server_begin()) Serial.println("the setup page's server would not start");
  // After WiFi.mode(): the seed's random bytes are truly random once the radio runs.
  app_device_start(&device, rolled_back);
}

void loop() {
  watchdog_feed();
  page_loop_swap();
  uint32_t due = app_device_pass(&device);  // the page's asks are done inside it (page_loop_serve)
  access_point_watch();
  app_device_after_pass(&device, due);  // the page's reboot or sleep once answered; DEEP_SLEEP's idle sleep
  // Until the module has work, but never long: answers, readings and the page come
  // sooner than next_due knows (it says IDLE, about 49 days, when nothing is live).
  // delay() yields this task to the upload task and Wi-Fi; no retry waits in it.
  delay(tickretry_loop_sleep(due, PASS_MAX_WAIT_MS));
}
