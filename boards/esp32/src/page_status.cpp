// The status snapshot the page reads (GET /status.json), made by the loop between passes
// when a handler asks for it (page_loop.h): the module's figures, the store, the power
// history, the sessions and the settings, as the simulator's /status.json has them.
#include <string.h>

#include "board_hal.h"
#include "page.h"
#include "page_loop.h"
#include "sketch_sessions.h"
#include "tickretry.h"

static const app_hal &hal = board_hal;
static const PageRooms *rooms;  // the rooms of the status being made
static size_t nvs_length(const char *key) { return hal.nvs_get_string(hal.ctx, key, "", nullptr, 0); }

// The store and power groups.
static void status_store(app_status *s) {
  const app_keeper *k = rooms->keeper;
  uint32_t ended = rooms->book->operations_ended;
  const app_reading_queue *queue = &k->kept->readings;
  s->readings_queued = queue->count;
  s->readings_queue_limit = APP_READINGS_QUEUE_LIMIT;
  s->readings_dropped = queue->dropped;
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
  s->power_count = rooms->boots();
  s->power_elapsed_ms = k->boot_elapsed_ms;
  s->power_restored_operations = k->boot_restored;
  s->power_restored_queued = k->boot_restored_queued;
}

// The module's own figures, when it runs.
static void status_module(app_status *s, uint32_t at) {
  static status_operation ops[TICKRETRY_LIMIT_OPERATIONS];
  s->abi_version = *rooms->scheduler_ok ? tickretry_abi_version() : 0;
  s->budget_on = app_retry_budget->capacity > 0;
  if (*rooms->scheduler_ok) {
    s->tokens_milli = tickretry_tokens();
    for (int i = 0; i < TICKRETRY_COUNTER_COUNT; i++) s->counters[i] = tickretry_counter(i);
    s->operation_count = app_readings_status(rooms->readings, ops, at);
  }
  s->operations = ops;
}

// The settings, the sessions and the broker settings (passwords only as set).
static void status_connections(app_status *s, uint32_t at) {
  static status_session sessions[APP_SESSION_COUNT];
  static char ssid[33], shown_url[160];
  hal.nvs_get_string(hal.ctx, "ssid", "", ssid, sizeof ssid);
  app_page_without_credentials(rooms->upload_url, shown_url, sizeof shown_url);
  s->ssid = ssid;
  s->upstream_url = shown_url;
  s->password_set = nvs_length("pass") > 0;
  s->app_password_set = nvs_length("devpw") > 0;
  s->sessions = sessions;
  s->session_count = *rooms->scheduler_ok ? sessions_status(sessions, at) : 0;
  s->broker_url = rooms->broker->url;
  s->broker_client_id = rooms->broker->client_id;
  s->broker_username = rooms->broker->username;
  s->broker_password_set = rooms->broker->password[0] != '\0';
  s->broker_topic = rooms->broker->topic;
}

size_t page_loop_status(const PageRooms &r, uint32_t since, char *out, size_t size) {
  static status_memo memo;  // what the last answer wrote of each group: a poll gets what changed
  rooms = &r;
  app_status s = {};
  s.name = rooms->device_id;
#if TICKRETRY_BACKEND_WASM3
  s.backend = "wasm3";
  s.module_upload = 1;
#else
  s.backend = "wasm2c";  // the module is compiled in: no upload
#endif
  uint32_t at = hal.ticks(hal.ctx);
  s.now = at;
  s.wall_ms = hal.wall_ms(hal.ctx);
  s.events_since = since;
  s.memo = &memo;
  status_module(&s, at);
  app_status_history(rooms->book, &s);
  status_store(&s);
  status_connections(&s, at);
  return app_status_json(&s, out, size);
}
