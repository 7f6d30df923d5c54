// See page_server.h.
#include "page_server.h"

#include <Arduino.h>
#include <WebServer.h>
#include <WiFi.h>

#include "access_point.h"
#include "board_hal.h"
#include "generated/page_routes.h"
#include "generated/setup_page.h"
#include "generated/tickretry_build_key.h"
#include "generated/tickretry_module.h"
#include "module_signature.h"
#include "page.h"
#include "password.h"
#include "settings.h"
#include "sketch_sessions.h"
#include "tickretry.h"
#include "tickretry_ticks.h"
#include "watchdog.h"
#if TICKRETRY_BACKEND_WASM3
#include "tickretry_wasm3.h"
#endif

static WebServer server(80);
static PageRooms rooms;
static app_password_guess_limit guesses;

// Headers the handlers read; WebServer keeps only those it is told of.
static const char *COLLECTED[] = {"Origin", "Referer", "Sec-Fetch-Site", "X-Device-Password"};

static const app_hal &hal = board_hal;
static uint32_t now() { return hal.ticks(hal.ctx); }
static size_t nvs_length(const char *key) { return hal.nvs_get_string(hal.ctx, key, "", nullptr, 0); }
static bool nvs_stored(const char *key, const char *value) {
  return hal.nvs_put_string(hal.ctx, key, value) == strlen(value);
}

static void send_json(int status, const char *text) {
  static char body[APP_PAGE_ANSWER_BYTES];
  app_page_answer_json(status, text, body, sizeof body);
  server.sendHeader("Cache-Control", "no-store");
  if (status >= 400) server.sendHeader("Connection", "close");
  server.send(status, "application/json", body);
}
static void answer_ok(const char *message) { send_json(200, message); }
static void refuse(int status, const char *error) { send_json(status, error); }

static bool host_allowed() {
  return app_page_host_allowed(server.hostHeader().c_str(), WiFi.softAPIP().toString().c_str(),
                               WiFi.localIP().toString().c_str());
}

static bool password_given() {
  char stored[APP_PASSWORD_STORED_MAX];
  hal.nvs_get_string(hal.ctx, "devpw", "", stored, sizeof stored);
  app_page_refusal refusal;
  uint32_t address = (uint32_t)server.client().remoteIP();
  if (app_page_password_given(&hal, &guesses, address, stored, server.header("X-Device-Password").c_str(),
                              &refusal)) {
    return true;
  }
  if (refusal.retry_after_s > 0) server.sendHeader("Retry-After", String((unsigned long)refusal.retry_after_s));
  refuse(refusal.status, refusal.error);
  return false;
}

// What every route of the contract passes before its handler: the Host (every route, not
// only the files), for a post its origin, then its guard.
template <void (*handler)(), int guard>
static void routed() {
  if (!host_allowed()) return server.send(421, "text/plain", PAGE_MSG_WRONG_HOST "\n");
  if (server.method() == HTTP_POST &&
      !app_page_same_origin(server.hostHeader().c_str(), server.header("Sec-Fetch-Site").c_str(),
                            server.header("Origin").c_str(), server.header("Referer").c_str())) {
    return refuse(403, PAGE_MSG_CROSS_SITE);
  }
  if (guard != PAGE_GUARD_OPEN && !rooms.keeper->nvs_ok) return refuse(503, PAGE_MSG_STORE_FAILED);
  bool first_setup = guard == PAGE_GUARD_FIRST_SETUP && nvs_length("devpw") == 0;
  if (guard != PAGE_GUARD_OPEN && !first_setup && !password_given()) return;
  handler();
}

static const uint8_t *active_module();
static size_t active_module_size();

static void security_headers() {
  server.sendHeader("Content-Security-Policy",
                    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; "
                    "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  server.sendHeader("X-Content-Type-Options", "nosniff");
}

// The module the playground runs, straight from flash (or RAM, an uploaded one).
static void handle_module_bytes() {
  security_headers();
  server.send_P(200, "application/wasm", reinterpret_cast<const char *>(active_module()), active_module_size());
}

// Every file of the page, straight from flash: what no route of the contract names.
static void handle_file() {
  if (server.method() != HTTP_GET) return server.send(405, "text/plain", PAGE_MSG_WRONG_METHOD "\n");
  const String uri = server.uri();
  security_headers();
  for (const page_asset &a : PAGE_ASSETS) {
    if (uri != a.path) continue;
    server.sendHeader("Content-Encoding", "gzip");
    server.send_P(200, a.type, reinterpret_cast<const char *>(a.gzip), a.length);
    return;
  }
  server.send(404, "text/plain", PAGE_MSG_NOT_FOUND "\n");
}

// The store and power groups.
static void status_store(app_status *s) {
  const app_keeper *k = rooms.keeper;
  uint32_t ended = rooms.book->operations_ended;
  s->readings_dropped = rooms.readings->dropped;  // a board takes no reading it cannot begin: no queue
  s->store_where = k->nvs_ok ? "NVS" : "NVS (would not open)";
  s->store_writes = k->writes;
  s->store_write_failures = k->write_failures;
  s->store_operations_ended = ended;
  s->store_writes_per_operation = {ended > 0, ended ? double(k->writes) / ended : 0};
  s->store_flash_life_years = {false, 0};  // the simulator's NVS model computes it (docs/device.md)
  s->store_bytes = sizeof *k->kept;
  s->store_image_bytes = k->kept->length;
  s->store_max_write_ms = k->max_write_ms;
  s->power_kind = k->boot_kind;
  s->power_count = rooms.boots();
  s->power_elapsed_ms = k->boot_elapsed_ms;
  s->power_restored_operations = k->boot_restored;
}

// The module's own figures, when it runs.
static void status_module(app_status *s, uint32_t at) {
  static status_operation ops[TICKRETRY_LIMIT_OPERATIONS];
  s->abi_version = *rooms.scheduler_ok ? tickretry_abi_version() : 0;
  s->budget_on = app_retry_budget->capacity > 0;
  if (*rooms.scheduler_ok) {
    s->tokens_milli = tickretry_tokens();
    for (int i = 0; i < TICKRETRY_COUNTER_COUNT; i++) s->counters[i] = tickretry_counter(i);
    s->operation_count = app_readings_status(rooms.readings, ops, at);
  }
  s->operations = ops;
}

// The settings, the sessions and the broker settings (passwords only as set).
static void status_connections(app_status *s, uint32_t at) {
  static status_session sessions[APP_SESSION_COUNT];
  static char ssid[33], shown_url[160];
  hal.nvs_get_string(hal.ctx, "ssid", "", ssid, sizeof ssid);
  app_page_without_credentials(rooms.upload_url, shown_url, sizeof shown_url);
  s->ssid = ssid;
  s->upstream_url = shown_url;
  s->password_set = nvs_length("pass") > 0;
  s->app_password_set = nvs_length("devpw") > 0;
  s->sessions = sessions;
  s->session_count = *rooms.scheduler_ok ? sessions_status(sessions, at) : 0;
  s->broker_url = rooms.broker->url;
  s->broker_client_id = rooms.broker->client_id;
  s->broker_username = rooms.broker->username;
  s->broker_password_set = rooms.broker->password[0] != '\0';
  s->broker_topic = rooms.broker->topic;
}

static void handle_status() {
  static char json[12 * 1024];
  static status_memo memo;  // what the last answer wrote of each group: a poll gets what changed
  app_status s = {};
  s.name = rooms.device_id;
#if TICKRETRY_BACKEND_WASM3
  s.backend = "wasm3";
  s.module_upload = 1;
#else
  s.backend = "wasm2c";  // the module is compiled in: no upload
#endif
  uint32_t at = now();
  s.now = at;
  s.wall_ms = hal.wall_ms(hal.ctx);
  s.events_since = app_status_since(server.arg("since").c_str());
  s.memo = &memo;
  status_module(&s, at);
  app_status_history(rooms.book, &s);
  status_store(&s);
  status_connections(&s, at);
  if (app_status_json(&s, json, sizeof json) == 0) return server.send(500, "text/plain", PAGE_MSG_STATUS_TOO_LARGE "\n");
  server.sendHeader("Cache-Control", "no-store");
  server.send(200, "application/json", json);
}

// The first setup sets the device password without one (routed() let it through only
// while none is stored; WebServer runs one request at a time, so two first setups cannot
// interleave); changing it needs the current one.
static void handle_password() {
  bool first = nvs_length("devpw") == 0;
  String password = server.arg("password");
  if (!app_password_acceptable(password.c_str()) || strlen(password.c_str()) != password.length()) {
    return refuse(400, PAGE_MSG_PASSWORD_RULE);
  }
  uint8_t salt[APP_PASSWORD_SALT_BYTES];
  hal.random_bytes(hal.ctx, salt, sizeof salt);
  char stored[APP_PASSWORD_STORED_MAX];
  if (app_password_hash(password.c_str(), salt, stored, sizeof stored) != 0) {
    return refuse(500, PAGE_MSG_PASSWORD_HASH_FAILED);
  }
  if (!nvs_stored("devpw", stored)) return refuse(507, PAGE_MSG_STORE_FAILED);
  answer_ok(first ? PAGE_MSG_PASSWORD_SET : PAGE_MSG_PASSWORD_CHANGED);
}

// The broker fields of the form (a field it does not carry keeps its stored value), checked
// as the simulator checks them (app_broker.c); into `out` when they pass.
static app_broker_problem broker_form(app_broker_settings *out) {
  const app_broker_settings *b = rooms.broker;
  const char *const stored[] = {b->url, b->client_id, b->username, b->password, b->topic};
  static const char *const names[] = {"brokerUrl", "brokerClientId", "brokerUsername", "brokerPassword",
                                      "brokerTopic"};
  String v[5];
  for (int i = 0; i < 5; i++) v[i] = server.hasArg(names[i]) ? server.arg(names[i]) : String(stored[i]);
  app_broker_form form = {v[0].c_str(),  v[1].c_str(),  v[2].c_str(),  v[3].c_str(),  v[4].c_str(),
                          v[0].length(), v[1].length(), v[2].length(), v[3].length(), v[4].length()};
  app_broker_problem problem = app_broker_check(&form);
  if (problem != APP_BROKER_OK) return problem;
  strlcpy(out->url, v[0].c_str(), sizeof out->url);
  strlcpy(out->client_id, v[1].c_str(), sizeof out->client_id);
  strlcpy(out->username, v[2].c_str(), sizeof out->username);
  strlcpy(out->password, v[3].c_str(), sizeof out->password);
  strlcpy(out->topic, v[4].c_str(), sizeof out->topic);
  return APP_BROKER_OK;
}

static bool store_broker(const app_broker_settings *b) {
  return nvs_stored("mqurl", b->url) && nvs_stored("mqid", b->client_id) && nvs_stored("mquser", b->username) &&
         nvs_stored("mqpass", b->password) && nvs_stored("mqtopic", b->topic);
}

// The same checks as the simulator's (app_settings.c, tested beside
// host/tools/src/device/app/settings.ts); a form with any bad field stores nothing. Hidden
// credentials in the URL ("***") are put back only for their own scheme, host and port.
static void handle_settings() {
  String ssid = server.arg("ssid"), pass = server.arg("password"), url = server.arg("upstreamUrl");
  app_settings_problem problem =
      app_settings_check(ssid.c_str(), ssid.length(), pass.c_str(), pass.length(), url.c_str(), url.length());
  if (problem != APP_SETTINGS_OK) return refuse(400, app_settings_meaning(problem));
  app_broker_settings broker;
  app_broker_problem broker_problem = broker_form(&broker);
  if (broker_problem != APP_BROKER_OK) return refuse(400, app_broker_meaning(broker_problem));
  char merged[160];
  app_settings_credentials_result credentials =
      app_settings_credentials(rooms.upload_url, url.c_str(), merged, sizeof merged);
  if (credentials != APP_SETTINGS_CREDENTIALS_OK) return refuse(400, app_settings_credentials_meaning(credentials));
  bool stored = hal.nvs_put_string(hal.ctx, "ssid", ssid.c_str()) == ssid.length() &&
                hal.nvs_put_string(hal.ctx, "pass", pass.c_str()) == pass.length() && nvs_stored("url", merged) &&
                store_broker(&broker);
  if (!stored) return refuse(507, PAGE_MSG_STORE_FAILED);
  hal.nvs_put_u32(hal.ctx, WIFI_FAILS_KEY, 0);  // new settings get their own tries (access_point.cpp)
  answer_ok(PAGE_MSG_SETTINGS_SAVED_RESTARTING);
  app_requests_restart(rooms.requests, now());
}

static void handle_upload() {
  app_requests_upload(rooms.requests);
  answer_ok(PAGE_MSG_UPLOAD_BEGUN);
}

// "Reboot" and "Deep sleep for N s", as the simulator has them: after the answer has left,
// the board restarts (and resumes from RTC memory) or sleeps (and resumes from it).
static void handle_reboot() {
  answer_ok(PAGE_MSG_REBOOT);
  app_requests_restart(rooms.requests, now());
}

static void handle_sleep() {
  String text = server.arg("s");
  uint32_t seconds = app_page_sleep_seconds(text.c_str(), text.length());
  if (seconds == 0) return refuse(400, PAGE_MSG_SLEEP_RULE);
  answer_ok(PAGE_MSG_SLEEP);
  app_requests_sleep(rooms.requests, seconds * 1000, now());
}

static void handle_loop_reset() {
  app_status_reset_gaps(rooms.book);
  answer_ok(PAGE_MSG_LOOP_RESET);
}

#if TICKRETRY_BACKEND_WASM3
// Replacing the module over the air: the upload (the module, then the build key's
// Ed25519 signature over it, `npm run sign`) arrives as a raw application/octet-stream
// body into RAM (wasm3 parses it in place, so it must outlive the runtime). Its signature
// is checked with libsodium before wasm3 sees a byte of it; then it is swapped in between
// two passes. tickretry_wasm3_open carries the whole state across (save, open, restore),
// so uploads in flight go on and their answers count; a module that fails to load or
// refuses the image is refused, and the embedded one runs on with the state.
#define MODULE_VERSION_KEY "modver"  // the highest module version accepted
static uint8_t *incoming;
static size_t incoming_size;
static bool incoming_too_large;
static uint8_t *active;  // the replaced module's bytes, kept while it runs
static size_t active_size;

static void drop_incoming() {
  free(incoming);
  incoming = nullptr;
  incoming_size = 0;
}

// The raw body as it arrives, before routed() runs: nothing is kept for a request whose
// Host is not this device's, and an aborted upload frees what it had.
static void receive_module() {
  HTTPRaw &raw = server.raw();
  if (raw.status == RAW_START) {
    drop_incoming();
    incoming_too_large = !host_allowed();
  } else if (raw.status == RAW_ABORTED) {
    drop_incoming();
  } else if (raw.status == RAW_WRITE && !incoming_too_large) {
    if (!app_page_module_fits(incoming_size, raw.currentSize)) {
      incoming_too_large = true;
      return;
    }
    uint8_t *grown = static_cast<uint8_t *>(realloc(incoming, incoming_size + raw.currentSize));
    if (!grown) return;
    memcpy(grown + incoming_size, raw.buf, raw.currentSize);
    incoming = grown;
    incoming_size += raw.currentSize;
  }
}

// The signature and the anti-rollback floor (module_signature.h); its length without the
// signature into `size`, or false once refused.
static bool module_acceptable(size_t *size, int64_t *version) {
  module_signature_result signature = module_signature_check(incoming, incoming_size, tickretry_build_key, size);
  if (signature != MODULE_SIGNATURE_OK) {
    char text[APP_PAGE_ANSWER_BYTES / 2];
    snprintf(text, sizeof text, "%s%s.", PAGE_MSG_MODULE_REFUSED, module_signature_meaning(signature));
    refuse(422, text);
    return false;
  }
  *version = module_version(incoming, *size);
  if (*version < int64_t(hal.nvs_get_u32(hal.ctx, MODULE_VERSION_KEY, 0))) {
    refuse(422, PAGE_MSG_MODULE_ROLLED_BACK);
    return false;
  }
  return true;
}

static void handle_module() {
  if (!incoming || incoming_too_large) {
    drop_incoming();
    return refuse(incoming_too_large ? 413 : 400, incoming_too_large ? PAGE_MSG_MODULE_TOO_LARGE : PAGE_MSG_NO_MODULE);
  }
  size_t module_size = 0;
  int64_t version = 0;
  if (!module_acceptable(&module_size, &version)) return drop_incoming();
  int32_t result = tickretry_wasm3_open(incoming, module_size, now());
  if (result == TICKRETRY_RESULT_OK || result == TICKRETRY_ERROR_NOT_INITIALIZED) {
    free(active);
    active = incoming;
    active_size = module_size;
    if (version > int64_t(hal.nvs_get_u32(hal.ctx, MODULE_VERSION_KEY, 0)) &&
        hal.nvs_put_u32(hal.ctx, MODULE_VERSION_KEY, uint32_t(version)) != sizeof(uint32_t)) {
      rooms.keeper->write_failures++;  // shown with the state's: the floor did not reach NVS
    }
    watchdog_trial(true);
    answer_ok(PAGE_MSG_MODULE_REPLACED);
    // No state to carry (the old engine had failed): start the new module afresh.
    if (result == TICKRETRY_ERROR_NOT_INITIALIZED) rooms.start_scheduler();
  } else {
    // Refused: the embedded module runs now (tickretry_wasm3_open fell back to it), so the
    // playground must get those bytes, not the last module that was replaced.
    free(incoming);
    free(active);
    active = nullptr;
    watchdog_trial(false);
    char text[APP_PAGE_ANSWER_BYTES / 2];
    snprintf(text, sizeof text, "%s%s", PAGE_MSG_MODULE_REFUSED, tickretry_wasm3_refusal());
    refuse(422, text);
  }
  incoming = nullptr;
  incoming_size = 0;
  *rooms.scheduler_ok = tickretry_error() == nullptr;
}

// An uploaded module that traps (wasm3 reports it as the call's error) is dropped for the
// embedded one, which takes up the state RTC memory kept at the last pass, as a reset
// would. One that loops never returns to here: the task watchdog resets the board, and
// the reset leaves the upload behind (it lived in RAM), so the embedded module resumes
// and the page's power card says why (watchdog.h).
void page_server_module_failed() {
  if (!active) return;
  Serial.println("the uploaded module failed: back to the embedded one");
  watchdog_trial(false);
  tickretry_close();
  free(active);
  active = nullptr;
  rooms.start_scheduler();
}

static const uint8_t *active_module() { return active ? active : tickretry_wasm; }
static size_t active_module_size() { return active ? active_size : TICKRETRY_WASM_LEN; }
#else
void page_server_module_failed() {}  // the module is compiled in: nothing to fall back to
static const uint8_t *active_module() { return tickretry_wasm; }
static size_t active_module_size() { return TICKRETRY_WASM_LEN; }
#endif

void page_server_begin(const PageRooms &page_rooms) {
  rooms = page_rooms;
  server.collectHeaders(COLLECTED, sizeof COLLECTED / sizeof COLLECTED[0]);
  // The contract's table, every route through routed(): none can skip the Host check.
#define ROUTE(path, method, handler, guard, body) server.on(path, method, routed<handler, guard>);
  PAGE_ROUTES(ROUTE)
#undef ROUTE
  server.onNotFound(routed<handle_file, PAGE_GUARD_OPEN>);  // the page's files, from flash
#if TICKRETRY_BACKEND_WASM3
#define ROUTE(path, method, handler, guard, body) server.on(path, method, routed<handler, guard>, receive_module);
  PAGE_ROUTES_WASM3(ROUTE)
#undef ROUTE
#endif
  server.begin();
}

void page_server_serve() { server.handleClient(); }
