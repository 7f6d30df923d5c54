// See page_loop.h.
#include "page_loop.h"

#include <Arduino.h>
#include <WiFi.h>

#include "access_point.h"
#include "asks.h"
#include "board_hal.h"
#include "generated/page_routes.h"
#include "generated/tickretry_module.h"
#include "module_signature.h"
#include "page_handoff.h"
#include "tickretry.h"
#include "watchdog.h"
#if TICKRETRY_BACKEND_WASM3
#include "tickretry_wasm3.h"
#endif

static PageRooms rooms;
static PageView view;  // the loop's own; published after every pass
static const app_hal &hal = board_hal;
static uint32_t now() { return hal.ticks(hal.ctx); }
static void answer(int status, const char *text) { page_handoff_answer(status, text); }

// The stores are the application's (../app/asks.c), the host-run firmware's too.
static void store_password(const app_ask &ask) {
  const char *hash = static_cast<const char *>(ask.data);
  const char *message;
  int status = app_asks_store_password(&hal, hash, ask.number == 1, &message);
  if (status == 200) strlcpy(view.stored_password, hash, sizeof view.stored_password);
  answer(status, message);
}

// Checked by the handler (page_server.cpp); the board restarts into them.
static void store_settings(const app_ask &ask) {
  const PageSettings *s = static_cast<const PageSettings *>(ask.data);
  const char *message;
  int status = app_asks_store_settings(&hal, s->ssid, s->pass, s->url, &s->broker, &message);
  answer(status, message);
  if (status == 200) app_requests_ask_restart(rooms.requests);
}

#if TICKRETRY_BACKEND_WASM3
// Replacing the module over the air: the handler received the upload into RAM and checked
// its build-key signature (module_signature.h) before a byte of it reaches here; the loop
// checks the anti-rollback floor and swaps it in between two passes. wasm3 parses it in
// place, so it lives as long as it runs. tickretry_wasm3_open carries the whole state across
// (save, open, restore), so uploads in flight go on and their answers count; a module that
// fails to load or refuses the image is refused, and the embedded one runs on with the state.
#define MODULE_VERSION_KEY "modver"  // the highest module version accepted
static uint8_t *active;              // the replaced module's bytes, kept while it runs

// The module the playground gets from now on (nullptr: the embedded one).
static void use_module(uint8_t *bytes, size_t size) {
  page_handoff_module_is(bytes ? bytes : tickretry_wasm, bytes ? size : TICKRETRY_WASM_LEN);
  free(active);  // no handler copies it any more
  active = bytes;
}

static void swap_module(const app_ask &ask) {
  uint8_t *incoming = static_cast<uint8_t *>(ask.data);
  int64_t version = module_version(incoming, ask.size);
  uint32_t floor = hal.nvs_get_u32(hal.ctx, MODULE_VERSION_KEY, 0);
  if (version < int64_t(floor)) {
    free(incoming);
    return answer(422, PAGE_MSG_MODULE_ROLLED_BACK);
  }
  int32_t result = tickretry_wasm3_open(incoming, ask.size, now());
  if (result == TICKRETRY_RESULT_OK || result == TICKRETRY_ERROR_NOT_INITIALIZED) {
    use_module(incoming, ask.size);
    if (version > int64_t(floor) && hal.nvs_put_u32(hal.ctx, MODULE_VERSION_KEY, uint32_t(version)) != sizeof(uint32_t)) {
      rooms.keeper->write_failures++;  // shown with the state's: the floor did not reach NVS
    }
    watchdog_trial(true);
    answer(200, PAGE_MSG_MODULE_REPLACED);
    // No state to carry (the old engine had failed): start the new module afresh.
    if (result == TICKRETRY_ERROR_NOT_INITIALIZED) rooms.start_scheduler();
  } else {
    // Refused: the embedded module runs now (tickretry_wasm3_open fell back to it).
    free(incoming);
    use_module(nullptr, 0);
    watchdog_trial(false);
    char text[APP_ASK_TEXT_BYTES];
    snprintf(text, sizeof text, "%s%s", PAGE_MSG_MODULE_REFUSED, tickretry_wasm3_refusal());
    answer(422, text);
  }
  *rooms.scheduler_ok = tickretry_error() == nullptr;
}

// An uploaded module that traps (wasm3 reports it as the call's error) is dropped for the
// embedded one, which takes up the state RTC memory kept at the last pass, as a reset
// would. One that loops never returns to here: the task watchdog resets the board, and
// the reset leaves the upload behind (it lived in RAM), so the embedded module resumes
// and the page's power card says why (watchdog.h).
void page_loop_module_failed() {
  if (!active) return;
  Serial.println("the uploaded module failed: back to the embedded one");
  watchdog_trial(false);
  tickretry_close();
  use_module(nullptr, 0);
  rooms.start_scheduler();
}
#else
static void swap_module(const app_ask &ask) {
  free(ask.data);  // no route posts it: the module is compiled in
  answer(404, PAGE_MSG_NOT_FOUND);
}
void page_loop_module_failed() {}  // the module is compiled in: nothing to fall back to
#endif

static void status(const app_ask &ask) {
  size_t length = page_loop_status(rooms, ask.number, static_cast<char *>(ask.data), ask.size);
  answer(length ? 200 : 500, length ? "" : PAGE_MSG_STATUS_TOO_LARGE);
}

static void do_ask(const app_ask &ask) {
  switch (ask.kind) {
    case APP_ASK_STATUS: return status(ask);
    case APP_ASK_UPLOAD:
      app_requests_upload(rooms.requests);
      return answer(200, PAGE_MSG_UPLOAD_BEGUN);
    case APP_ASK_LOOP_RESET:
      app_status_reset_gaps(rooms.book);
      return answer(200, PAGE_MSG_LOOP_RESET);
    // A reboot or a sleep begins after the answer has left (APP_LOOP_POWER_AFTER_MS).
    case APP_ASK_RESTART:
      app_requests_ask_restart(rooms.requests);
      return answer(200, PAGE_MSG_REBOOT);
    case APP_ASK_SLEEP:
      app_requests_ask_sleep(rooms.requests, ask.number);
      return answer(200, PAGE_MSG_SLEEP);
    case APP_ASK_PASSWORD: return store_password(ask);
    case APP_ASK_SETTINGS: return store_settings(ask);
    case APP_ASK_MODULE: return swap_module(ask);
  }
}

static void name_of(const IPAddress &ip, char (&out)[16]) {
  snprintf(out, sizeof out, "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
}

void page_loop_begin(const PageRooms &page_rooms) {
  rooms = page_rooms;
  page_handoff_begin();
  view.nvs_ok = rooms.keeper->nvs_ok;
  hal.nvs_get_string(hal.ctx, "devpw", "", view.stored_password, sizeof view.stored_password);
  strlcpy(view.upload_url, rooms.upload_url, sizeof view.upload_url);
  view.broker = *rooms.broker;
#if TICKRETRY_BACKEND_WASM3
  use_module(nullptr, 0);
#else
  page_handoff_module_is(tickretry_wasm, TICKRETRY_WASM_LEN);
#endif
  page_loop_serve();
}

void page_loop_serve() {
  app_ask ask;
  if (page_handoff_take(&ask)) do_ask(ask);
  view.now = now();
  name_of(WiFi.softAPIP(), view.ap_ip);
  name_of(WiFi.localIP(), view.local_ip);
  page_handoff_publish(view);
}
