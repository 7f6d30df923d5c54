/* The firmware's application (boards/app) on this machine, over host_hal.c: composed as
 * boards/esp32/src/main.cpp composes it (no Wi-Fi session: the host's station is always on;
 * built with UPLOAD_MQTT=1, the broker session over host_broker.c's scripted broker), driven by a script on stdin in the command language of
 * test/app-scenarios/README.md, which also specifies the trace it prints (one line each:
 * loop events, readings, kept-state writes with a hash of their bytes, NVS writes, the
 * server's stores, a summary at the end). test/boards/app_sim/sim.ts is its twin over the
 * simulator's rooms; the two traces are compared byte for byte. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generated/app_config.h"
#include "asks.h"
#include "host_hal.h"
#include "host_page.h"
#include "idle_sleep.h"
#include "kept.h"
#include "module_swap.h"
#include "readings.h"
#include "requests.h"
#if UPLOAD_MQTT
#include "host_broker.h"
#include "sessions.h"
#endif
#include "status.h"
#include "tickretry.h"
#include "tickretry_loop.h"
#include "tickretry_ticks.h"
#include "tickretry_trace.h"
#include "test_modules.h"


static const app_hal *const board = &host_hal;
static tickretry_loop uploads;
static app_keeper keeper;
static app_readings readings;
static app_status_book book;
static app_requests requests;
static app_module_swap swap;
#if UPLOAD_MQTT
static app_sessions sessions;
#endif
static struct {
  uint8_t *bytes; /* the page's checked upload, for the next pass; NULL: none */
  size_t size;
} module_posted;
static int scheduler_ok;
static uint32_t idle_sleep_max_ms; /* the DEEP_SLEEP=1 build's cut on a sleep; 0: never sleeps */
static uint32_t rtc_hash;
/* The script's clock: it runs on through a deep sleep, while the board's tick starts again
 * at every boot. A pass falls due at next_pass_at of it, across commands. */
static uint32_t world_ms, next_pass_at;
/* The readings ended, taken and dropped this pass, said once the kept state holds them:
 * the taken and dropped in the order they came (a pass takes two at most, and a refused
 * begin drops every queued one). */
static struct {
  unsigned long seq;
  long reason;
} ends[TICKRETRY_LIMIT_OPERATIONS];
static int ends_unsaid;
static struct {
  int dropped;
  uint32_t n;
} notes[APP_READINGS_QUEUE_LIMIT + 4];
static int notes_unsaid;

static void reading_noted(void *ctx, int dropped, uint32_t n) {
  (void)ctx;
  if (notes_unsaid == (int)(sizeof notes / sizeof notes[0])) return;
  notes[notes_unsaid].dropped = dropped;
  notes[notes_unsaid++].n = n;
}
/* "crash POINT N": the simulator's crash points (host/tools/src/device/app/kept.ts), where a
 * board's panic resets it (RTC memory kept) and the pass is cut short there. */
static struct {
  char point[16];
  int nth, seen;
} crash_at;
static jmp_buf crashed;

static uint32_t now(void) { return board->ticks(board->ctx); }

static void crash_point(const char *point) {
  if (strcmp(point, crash_at.point) != 0 || ++crash_at.seen != crash_at.nth) return;
  printf("%lu crash %s\n", (unsigned long)now(), point);
  longjmp(crashed, 1);
}

/* FNV-1a of the kept state's bytes: the trace's record of each write to RTC memory. */
static uint32_t kept_hash(void) {
  const uint8_t *p = (const uint8_t *)keeper.rtc;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < sizeof *keeper.rtc; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void trace_rtc(void) {
  uint32_t h = kept_hash();
  if (h != rtc_hash) printf("%lu rtc kept hash %08lx\n", (unsigned long)now(), (unsigned long)h);
  rtc_hash = h;
}

static uint32_t hal_ticks(void *ctx) {
  (void)ctx;
  return now();
}

#if UPLOAD_MQTT
/* main.cpp's MQTT build: a session's connect attempt, else a publish of the reading. */
static void hal_start_attempt(void *ctx, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t t) {
  (void)ctx, (void)operation_id, (void)t;
  if (app_sessions_start_attempt(&sessions, handle, attempt) == APP_SESSION_NOT_ONE)
    app_sessions_publish(&sessions, handle, attempt, APP_BROKER_DEFAULT_TOPIC, app_readings_body(&readings, handle));
}

static int hal_collect(void *ctx, uint32_t t, tickretry_loop_result *out) {
  (void)ctx, (void)t;
  if (!app_sessions_collect(&sessions, out)) return 0;
  app_readings_mqtt_outcome(&readings, out->handle, out->outcome);
  crash_point("answer");
  return 1;
}

static int hal_dropped(void *ctx, uint32_t t, int32_t *handle) {
  (void)ctx, (void)t;
  return app_sessions_dropped(&sessions, handle);
}
static int hal_link_up(void *ctx, uint32_t t) {
  (void)ctx, (void)t;
  return app_sessions_link_up(&sessions);
}
#else
static void hal_start_attempt(void *ctx, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t t) {
  (void)ctx;
  (void)t;
  app_http_attempt request;
  app_readings_http_attempt(&readings, handle, attempt, operation_id, &request);
  board->http_start(board->ctx, &request);
}

static int hal_collect(void *ctx, uint32_t t, tickretry_loop_result *out) {
  (void)ctx;
  (void)t;
  if (!app_readings_http_collect(&readings, out)) return 0;
  crash_point("answer"); /* the upstream may have stored it; not reported yet */
  return 1;
}
#endif

/* main.cpp's begin_due: over MQTT, queued readings begin only while the broker session is up. */
static void hal_begin_due(void *ctx, tickretry_loop *loop, uint32_t t) {
  (void)ctx;
  (void)loop;
  int may_begin = 1;
#if UPLOAD_MQTT
  int32_t resumed = app_sessions_broker_resume(&sessions, loop, t);
  if (resumed > 0) keeper.kept->sessions.broker = resumed;
  may_begin = app_sessions_broker_up(&sessions);
#endif
  app_readings_begin_due(&readings, t, app_requests_take_upload(&requests), may_begin);
}

/* The kept state's write, each reading ended, taken or dropped said once it holds them (as
 * the simulator says them once its state file does), between the crash points around it. */
static void hal_persist(void *ctx, uint32_t t) {
  (void)ctx;
  int writes = tickretry_changes() != keeper.changes || keeper.touched;
  if (writes) crash_point("before-write");
  app_keeper_keep(&keeper, &uploads, 0, t);
  trace_rtc();
  for (int i = 0; i < ends_unsaid; i++) printf("%lu ended seq %lu reason %ld\n", (unsigned long)t, ends[i].seq, ends[i].reason);
  ends_unsaid = 0;
  for (int i = 0; i < notes_unsaid; i++)
    printf("%lu reading %s %lu\n", (unsigned long)t, notes[i].dropped ? "dropped" : "seq", (unsigned long)notes[i].n);
  notes_unsaid = 0;
  if (writes) crash_point("after-write");
}

static unsigned long body_seq(int32_t handle) {
  const char *key = UPLOAD_MQTT ? "\"reading\":" : "\"seq\":";
  const char *at = strstr(app_readings_body(&readings, handle), key);
  return at ? strtoul(at + strlen(key), NULL, 10) : 0;
}

/* An operation of a reading, not a session's. */
static int is_reading(int32_t handle) {
#if UPLOAD_MQTT
  if (handle == sessions.broker_view.handle) return 0;
#endif
  (void)handle;
  return 1;
}

static void hal_on_event(void *ctx, const tickretry_loop_event *event) {
  (void)ctx;
  char line[96];
  tickretry_loop_event_format(event, line, sizeof line);
  printf("%lu event %s\n", (unsigned long)now(), line);
  if (event->kind == TICKRETRY_LOOP_EVENT_END && is_reading(event->handle) && ends_unsaid < TICKRETRY_LIMIT_OPERATIONS)
    ends[ends_unsaid].seq = body_seq(event->handle), ends[ends_unsaid++].reason = (long)event->reason;
#if UPLOAD_MQTT
  app_sessions_see(&sessions, &uploads, event);
#endif
  app_readings_see(&readings, event);
}

static const tickretry_loop_hal loop_hal = {
    .ctx = NULL,
    .ticks = hal_ticks,
    .collect = hal_collect,
#if UPLOAD_MQTT
    .sessions = &tickretry_loop_sessions,
    .dropped = hal_dropped,
    .link_up = hal_link_up,
#else
    .sessions = NULL,
    .dropped = NULL,
    .link_up = NULL,
#endif
    .begin_due = hal_begin_due,
    .persist = hal_persist,
    .start_attempt = hal_start_attempt,
    .on_event = hal_on_event,
    .serve = NULL,
};

/* main.cpp's start_afresh, the seed from the HAL's random bytes. */
static void start_afresh(void) {
  app_keeper_forget(&keeper);
  app_readings_due_in(&readings, now(), 0);
  uint32_t seed[2];
  board->random_bytes(board->ctx, seed, sizeof seed);
  tickretry_init(seed[0], seed[1]);
  tickretry_set_policy(APP_UPLOAD_POLICY, app_upload_policy);
#if UPLOAD_MQTT
  app_sessions_set_policies();
#endif
  tickretry_set_budget(app_retry_budget);
  tickretry_loop_init(&uploads, &loop_hal);
  printf("%lu scheduler afresh\n", (unsigned long)now());
}

/* main.cpp's setup(), less the board's radio, page server and sessions. */
static void boot(const char *how) {
  printf("%lu boot %s\n", (unsigned long)now(), how);
  ends_unsaid = notes_unsaid = 0; /* what the kept state never held: ends come again */
  memset(&requests, 0, sizeof requests);
  memset(&book, 0, sizeof book);
  app_keeper_init(&keeper, board, 1);
  const char *rolled_back = app_module_swap_boot(&swap, board, &keeper, &host_hal_rtc_trial, 0);
  app_readings_init(&readings, board, &keeper, &book, &uploads, "a0b1c2d3e4f5");
  readings.noted = reading_noted;
  scheduler_ok = tickretry_open() == TICKRETRY_RESULT_OK;
  if (!scheduler_ok) {
    printf("%lu say %s\n", (unsigned long)now(), tickretry_error());
    return;
  }
  uint32_t next_reading_in;
  if (app_keeper_resume(&keeper, &uploads, &loop_hal, now(), &next_reading_in)) {
    app_readings_due_in(&readings, now(), next_reading_in);
    printf("%lu resumed %s next reading in %lu\n", (unsigned long)now(), keeper.boot_kind,
           (unsigned long)next_reading_in);
  } else {
    start_afresh();
  }
#if UPLOAD_MQTT /* sketch_sessions.cpp's broker_start: the kept session, or a new one */
  app_sessions_init(&sessions, board);
  app_session_handles *kept = &keeper.kept->sessions;
  kept->broker = app_sessions_begin(&sessions, &uploads, &sessions.broker_view, kept->broker, APP_BROKER_POLICY, now());
  app_sessions_bind_broker(&sessions, kept->broker);
  host_broker_bind(&sessions.broker);
#endif
  if (rolled_back) { /* the page's power card says so (main.cpp's setup) */
    keeper.boot_kind = rolled_back;
    printf("%lu module rollback %s\n", (unsigned long)now(), rolled_back);
  }
  rtc_hash = kept_hash();
  app_status_boot(&book, now(), board->wall_ms(board->ctx), strcmp(keeper.boot_kind, "deep sleep") == 0,
                  keeper.boot_elapsed_ms);
}

/* A board's reset ends the module's instance with everything else in RAM: an uploaded
 * module, and one the page posted. */
static void reboot(int woke_by_timer, uint32_t slept_ms, int power_cut) {
  tickretry_close();
  free(swap.active);
  free(swap.staged);
  free(module_posted.bytes);
  memset(&swap, 0, sizeof swap);
  memset(&module_posted, 0, sizeof module_posted);
  if (power_cut) host_hal_power_cut();
  else host_hal_reboot(woke_by_timer, slept_ms);
  boot(power_cut ? "power-on" : woke_by_timer ? "timer wake" : "reset");
}

static void advance(uint32_t ms) {
  host_hal_advance(ms);
  world_ms += ms;
}

/* main.cpp's deep_sleep_for: the kept state with the sleep noted, then the timed wake
 * `sleep_ms` later; the next pass comes at once. */
static void deep_sleep_for(uint32_t sleep_ms) {
  int32_t until_reading = tickretry_ticks_until(now(), readings.next_at);
  app_keeper_before_sleep(&keeper, &uploads, now(), sleep_ms, until_reading > 0 ? (uint32_t)until_reading : 0);
  trace_rtc();
  printf("%lu deep sleep %lu next reading in %ld\n", (unsigned long)now(), (unsigned long)sleep_ms,
         (long)until_reading);
  world_ms += sleep_ms;
  next_pass_at = world_ms;
  reboot(1, sleep_ms, 0);
}

static void reboot_now(int power_cut) {
  next_pass_at = world_ms;
  reboot(0, 0, power_cut);
}

static void say_page(int status, const char *message, const char *field) {
  printf("%lu page %d %s", (unsigned long)now(), status, message);
  if (field) printf(" (%s)", field);
  printf("\n");
}

/* The module swap's part of a pass's start (page_loop.cpp's): the module taken by the last
 * pass swapped in, then the one the page posted since taken for the next. */
static void apply_module_asks(void) {
  char text[APP_ASK_TEXT_BYTES];
  int status, afresh;
  if (app_module_swap_in(&swap, now(), &status, text, sizeof text, &afresh)) {
    say_page(status, text, NULL);
    if (app_module_swap_on_trial(&swap)) printf("%lu module trial\n", (unsigned long)now());
    if (afresh) start_afresh();
    scheduler_ok = tickretry_error() == NULL;
  }
  const char *refusal;
  if (module_posted.bytes && !app_module_swap_take(&swap, module_posted.bytes, module_posted.size, &refusal))
    say_page(422, refusal, NULL);
  module_posted.bytes = NULL;
}

/* What the page asked, carried out at the pass's start (asks.c), and its answer. */
static void apply_asks(void) {
  char url[160];
  board->nvs_get_string(board->ctx, APP_URL_KEY, HOST_UPSTREAM_URL, url, sizeof url);
  app_asks_apply(&requests, board, url);
  apply_module_asks();
  int status;
  const char *message, *field;
  if (app_requests_answered(&requests, &status, &message, &field)) say_page(status, message, field);
}

/* The DEEP_SLEEP=1 build's sleep after a pass (main.cpp's sleep_if_idle): 1 when it slept. */
static int sleep_if_idle(uint32_t due) {
  if (!scheduler_ok || idle_sleep_max_ms == 0 || requests.restart) return 0;
  uint32_t sleep_ms = app_idle_sleep_ms(&uploads, due, now(), readings.next_at, idle_sleep_max_ms);
  if (sleep_ms > 0) deep_sleep_for(sleep_ms);
  return sleep_ms > 0;
}

/* One pass of main.cpp's loop(); the wait until the next (at least 1 ms, so that the
 * script's clock moves; none after a reboot or a wake). */
static uint32_t pass(void) {
  apply_asks();
  app_status_pass(&book, now());
  uint32_t due = tickretry_loop_pass(&uploads);
  if (tickretry_loop_fault(&uploads) != 0 && app_module_swap_failed(&swap)) {
    reboot(0, 0, 0); /* main.cpp's restart: the next boot rolls the uploaded module back */
    return 0;
  }
  if (tickretry_loop_fault(&uploads) != 0) {
    printf("%lu fault %ld\n", (unsigned long)now(), (long)tickretry_loop_fault(&uploads));
    scheduler_ok = 0;
  }
  /* What the page asked for, after its answer has left (main.cpp's loop). */
  app_power_request power = app_requests_power_due(&requests, now());
  if (power == APP_POWER_RESTART) {
    reboot(0, 0, 0);
    return 0;
  }
  if (power == APP_POWER_SLEEP) {
    deep_sleep_for(requests.sleep_ms);
    return 0;
  }
  if (sleep_if_idle(due)) return 0;
  uint32_t wait = tickretry_loop_sleep(due, APP_LOOP_PASS_MAX_WAIT_MS);
  return wait == 0 ? 1 : wait;
}

/* `ms` of the script's clock: every pass that falls due in it, then the clock stands at its
 * end (the next pass may fall due in the next run). */
static void run(uint32_t ms) {
  static uint32_t end; /* kept across a crash's longjmp */
  end = world_ms + ms;
  if (setjmp(crashed)) reboot_now(0);
  while (scheduler_ok && (int32_t)(next_pass_at - end) <= 0) {
    advance(next_pass_at - world_ms);
    uint32_t wait = pass();
    next_pass_at = world_ms + wait;
  }
  if ((int32_t)(end - world_ms) > 0) advance(end - world_ms);
}

static int fate_of(const char *name, host_fate *fate) {
  static const char *const names[] = {"ok", "503", "down", "hang"};
  for (int i = 0; i < 4; i++)
    if (strcmp(name, names[i]) == 0) return *fate = (host_fate)i, 1;
  return 0;
}

#if UPLOAD_MQTT
/* "broker up|down|refuse CODE": 0 when not one. */
static int broker_command(const char *state, int code) {
  static const char *const names[] = {"up", "down", "refuse"};
  for (int i = 0; i < 3; i++)
    if (strcmp(state, names[i]) == 0) return host_broker_set((host_broker_state)i, code, now()), 1;
  return 0;
}
#endif

/* What the page's status shows: whether a device password is set. */
static int password_set(void) { return board->nvs_get_string(board->ctx, APP_DEVICE_PASSWORD_KEY, "", NULL, 0) > 0; }

/* One script line; 0 when it is not understood. */
static int command(const char *line) {
  char word[16], arg[16], field[3][160];
  unsigned long ms = 0;
  int n = sscanf(line, "%15s %15s %lu", word, arg, &ms);
  host_fate fate;
  if (n < 1 || word[0] == '#') return 1;
  if (strcmp(word, "settings") == 0 && sscanf(line, "%*s %159s %159s %159s", field[0], field[1], field[2]) == 3)
    host_page_settings(&requests, field[0], field[1], field[2], now());
  else if (strcmp(word, "password") == 0 && sscanf(line, "%*s %159s", field[0]) == 1)
    host_page_password(&requests, board, field[0], password_set() == 0, now());
  else if (strcmp(word, "module") == 0 && n == 2 && !module_posted.bytes) { /* one ask at a time */
    snprintf(field[0], sizeof field[0], "%s/%s.signed.wasm", APP_MODULES_DIR, arg);
    host_page_module(field[0], test_build_key, now(), &module_posted.bytes, &module_posted.size);
  }
  else if (strcmp(word, "transport") == 0 && n == 2) /* the script's: this build's */
    return strcmp(arg, UPLOAD_MQTT ? "mqtt" : "http") == 0;
#if UPLOAD_MQTT
  else if (strcmp(word, "broker") == 0 && n >= 2) return broker_command(arg, n == 3 ? (int)ms : 0);
#endif
  else if (strcmp(word, "net") == 0 && n == 3 && fate_of(arg, &fate)) host_hal_script(fate, (uint32_t)ms);
  else if (strcmp(word, "fallback") == 0 && n == 3 && fate_of(arg, &fate)) host_hal_fallback(fate, (uint32_t)ms);
  else if (strcmp(word, "run") == 0 && n == 2) run((uint32_t)strtoul(arg, NULL, 10));
  else if (strcmp(word, "sleep") == 0 && n == 2) deep_sleep_for((uint32_t)strtoul(arg, NULL, 10));
  else if (strcmp(word, "idle-sleep") == 0) idle_sleep_max_ms = n == 2 ? (uint32_t)strtoul(arg, NULL, 10) : APP_SLEEP_MAX_MS;
  else if (strcmp(word, "upload") == 0) app_requests_upload(&requests);
  else if (strcmp(word, "ask-restart") == 0) app_requests_ask_restart(&requests);
  else if (strcmp(word, "ask-sleep") == 0 && n == 2) app_requests_ask_sleep(&requests, (uint32_t)strtoul(arg, NULL, 10));
  else if (strcmp(word, "reboot") == 0) reboot_now(0);
  else if (strcmp(word, "powercut") == 0) reboot_now(1);
  else if (strcmp(word, "crash") == 0 && n == 3) {
    snprintf(crash_at.point, sizeof crash_at.point, "%s", arg);
    crash_at.nth = (int)ms, crash_at.seen = 0;
  }
  else return 0;
  return 1;
}

/* The operations live, less the broker session's: the readings'. */
static uint32_t live_readings(void) {
  uint32_t live = tickretry_loop_live(&uploads);
#if UPLOAD_MQTT
  int32_t state = tickretry_state(sessions.broker_view.handle);
  int session_live = state == TICKRETRY_STATE_WAITING || state == TICKRETRY_STATE_IN_FLIGHT || state == TICKRETRY_STATE_UP;
  if (sessions.broker_view.handle && session_live && live > 0) live--;
#endif
  return live;
}

int main(void) {
  char line[128];
  host_hal_power_on();
  boot("power-on");
  while (fgets(line, sizeof line, stdin)) {
    if (!command(line)) {
      fprintf(stderr, "not a command: %s", line);
      return 2;
    }
  }
  printf("%lu nvs writes %lu\n", (unsigned long)now(), (unsigned long)keeper.writes);
  const app_reading_queue *queue = &keeper.kept->readings;
  printf("%lu summary live %lu queued %lu dropped %lu seq %lu\n", (unsigned long)now(), (unsigned long)live_readings(),
         (unsigned long)queue->count, (unsigned long)queue->dropped, (unsigned long)keeper.kept->upload_seq);
  tickretry_close();
  return scheduler_ok ? 0 : 1;
}
