// See page_loop.h.
#include "page_loop.h"

#include <Arduino.h>
#include <WiFi.h>

#include "access_point.h"
#include "asks.h"
#include "board_hal.h"
#include "generated/page_routes.h"
#include "generated/tickretry_module.h"
#include "module_swap.h"
#include "page_handoff.h"
#include "tickretry.h"
#include "watchdog.h"

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
// Replacing the module over the air (../app/module_swap.h): the handler received the upload
// into RAM and checked its build-key signature before a byte of it reaches here; the loop
// takes it in one pass (the anti-rollback floor) and swaps it in before the next
// (page_loop_swap), which answers. wasm3 parses it in place, so it lives as long as it runs.
static app_module_swap swap;

// The module the playground gets from now on (nullptr: the embedded one).
static void module_is(const uint8_t *bytes, size_t size) {
  page_handoff_module_is(bytes ? bytes : tickretry_wasm, bytes ? size : TICKRETRY_WASM_LEN);
}

static void take_module(const app_ask &ask) {
  const char *refusal;
  if (!app_module_swap_take(&swap, static_cast<uint8_t *>(ask.data), ask.size, &refusal)) answer(422, refusal);
}

void page_loop_swap() {
  static char text[APP_ASK_TEXT_BYTES];
  int status;
  if (app_device_swap_module(rooms.device, &swap, &status, text, sizeof text)) answer(status, text);
}

// An uploaded module under trial that fails a pass (wasm3 reports a trap as the call's
// error) is marked failed and the board restarts: the next boot runs the embedded module on
// the state RTC memory kept at the last pass, and its power card says why. One that loops
// never returns to here: the task watchdog resets the board (watchdog.h).
void page_loop_module_failed() {
  if (!app_module_swap_failed(&swap)) return;
  Serial.println("the uploaded module failed under trial: restarting with the embedded one");
  hal.restart(hal.ctx);
}

static const char *swap_begin(bool watchdog_reset) {
  swap.running = module_is;
  module_is(nullptr, 0);
  return app_module_swap_boot(&swap, &hal, rooms.keeper, watchdog_trial_mark(), watchdog_reset);
}
#else
static void take_module(const app_ask &ask) {
  free(ask.data);  // no route posts it: the module is compiled in
  answer(404, PAGE_MSG_NOT_FOUND);
}
void page_loop_swap() {}
void page_loop_module_failed() {}  // the module is compiled in: nothing to fall back to
static const char *swap_begin(bool) {
  page_handoff_module_is(tickretry_wasm, TICKRETRY_WASM_LEN);
  return nullptr;
}
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
    case APP_ASK_MODULE: return take_module(ask);
  }
}

static void name_of(const IPAddress &ip, char (&out)[16]) {
  snprintf(out, sizeof out, "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
}

const char *page_loop_begin(const PageRooms &page_rooms, bool watchdog_reset) {
  rooms = page_rooms;
  page_handoff_begin();
  view.nvs_ok = rooms.keeper->nvs_ok;
  hal.nvs_get_string(hal.ctx, "devpw", "", view.stored_password, sizeof view.stored_password);
  strlcpy(view.upload_url, rooms.upload_url, sizeof view.upload_url);
  view.broker = *rooms.broker;
  const char *rolled_back = swap_begin(watchdog_reset);
  page_loop_serve();
  return rolled_back;
}

void page_loop_serve() {
  app_ask ask;
  if (page_handoff_take(&ask)) do_ask(ask);
  view.now = now();
  name_of(WiFi.softAPIP(), view.ap_ip);
  name_of(WiFi.localIP(), view.local_ip);
  page_handoff_publish(view);
}
